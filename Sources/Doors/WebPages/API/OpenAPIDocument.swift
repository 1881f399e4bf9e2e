import Cards
import Foundation
import Geocoding

/// The API's OpenAPI 3.1 document, served at `/openapi.json`: every `/v1` route with its
/// parameters, bodies, responses and the Bearer scheme. `APIDocumentTests` keeps it in step
/// with the router (each route registered is described here, and each described is
/// registered) and runs schemathesis against a live server with it.
enum OpenAPIDocument {
  static let path = "/openapi.json"

  static let data: Data = CardJSON.data(document)

  static var document: [String: Any] {
    [
      "openapi": "3.1.0",
      "info": [
        "title": "CardAtlas API", "version": "1",
        "description":
          "Cards on the map (GeoJSON clusters, nearby), the signed-in account's cards and "
          + "wallet. Errors are {\"error\": \"CODE message\"}, the RESP command's error line.",
      ],
      "paths": paths,
      "components": ["schemas": Schemas.all, "securitySchemes": ["bearer": bearerScheme]],
    ]
  }

  static var bearerScheme: [String: Any] {
    [
      "type": "http", "scheme": "bearer",
      "description": "A session token (SESSION.OPEN's reply) as `Authorization: Bearer <token>`.",
    ]
  }

  static var paths: [String: Any] {
    [
      "/v1/cards": [
        "get": operation(
          "clusters", "The map's markers in a viewport (CARD.CLUSTERS)",
          parameters: [
            query(
              "bbox", required: true,
              [
                "type": "string",
                "pattern": "^\(longitude),\(latitude),\(longitude),\(latitude)$",
                "examples": ["-10,35,30,60", "170,-50,-170,-30"],
              ],
              "minLon,minLat,maxLon,maxLat; minLon > maxLon crosses the antimeridian; at most "
                + "4096 × 4096 pixels at the zoom (512-pixel tiles)"),
            query(
              "zoom", required: true,
              ["type": "integer", "minimum": 0, "maximum": Cards.maxClusterZoom],
              "Map zoom, of 512-pixel tiles (a 256-pixel-tile map's zoom less one)"),
          ]
            + CardFilter.Field.allCases.map {
              query(
                $0.rawValue, required: false, ["type": "string"],
                "Only cards whose \($0.rawValue) is this (case and accents ignored)")
            },
          responses: [
            "200": body(
              "A GeoJSON FeatureCollection of clusters and cards", ref("FeatureCollection"),
              type: "application/geo+json"),
            "400": error("A bbox or zoom missing, malformed or out of range"),
            "422": error("A bbox whose minLat is above its maxLat, or too large for the zoom"),
          ])
      ],
      "/v1/geocode": [
        "get": operation(
          "geocode", "Places matching a text, best first (GEOCODE): the map's search box",
          parameters: [
            query(
              "q", required: true,
              ["type": "string", "minLength": 1, "maxLength": CardAPI.maxGeocodeText],
              "What to look for: a place, an address (only spaces find nothing)"),
            query(
              "count", required: false,
              [
                "type": "integer", "minimum": 1, "maximum": GeocodeQuery.maximumLimit,
                "default": CardAPI.defaultGeocodeCount,
              ], "At most this many"),
          ],
          responses: [
            "200": body("The places", ["type": "array", "items": ref("Place")]),
            "400": error("No text, an empty one, or a bad count"),
            "429": limited("Past \(CardAPI.geocodesPerMinute) searches a minute from one address"),
            "502": error("The geocoder failed"),
            "503": error("No geocoder is configured"),
          ])
      ],
      "/v1/cards/nearby": [
        "get": operation(
          "nearby", "Cards within a radius, nearest first (CARD.SEARCH … BYRADIUS)",
          parameters: [
            query("lon", required: true, number(-180, 180), "Longitude"),
            query("lat", required: true, number(-85.05112878, 85.05112878), "Latitude"),
            query("radius", required: true, number(0, CardAPI.maxRadius), "Metres"),
            query(
              "count", required: false,
              [
                "type": "integer", "minimum": 1, "maximum": CardAPI.maxNearbyCount,
                "default": CardAPI.defaultNearbyCount,
              ], "At most this many"),
          ],
          responses: [
            "200": body(
              "Summaries with distance (metres) and coordinates",
              ["type": "array", "items": ref("NearbyCard")]),
            "400": error("Bad coordinates, radius or count"),
          ])
      ],
      "/v1/cards/mine": [
        "get": operation(
          "myCards", "The signed-in account's cards (CARD.MINE)", secured: true,
          responses: ["200": body("The cards", ["type": "array", "items": ref("Card")])]),
        "post": operation(
          "createCard", "Creates a card (CARD.CREATE)", secured: true,
          requestBody: ref("CardInput"),
          responses: [
            "201": body(
              "The new card", ref("Card"),
              headers: ["Location": ["schema": ["type": "string"]]], links: cardLinks),
            "400": error("Invalid JSON or fields"),
            "403": error("The plan's card limit is reached"),
            "413": error("The body is over 64 KiB"),
          ]),
      ],
      "/v1/cards/{id}": [
        "get": operation(
          "getCard", "A card as CARD.GET shows it (counts a view)", secured: true,
          parameters: [idParameter],
          responses: [
            "200": body("The card", ref("Card")), "404": error("No such card"),
            "429": limited("Past the look-ups by code an hour (the account's or the address's)"),
          ]),
        "patch": operation(
          "updateCard", "Applies an RFC 7396 merge patch (CARD.UPDATE)", secured: true,
          parameters: [idParameter], requestBody: ref("CardPatch"),
          bodyTypes: ["application/merge-patch+json", "application/json"],
          responses: [
            "200": body("The card", ref("Card")), "400": error("Invalid JSON or fields"),
            "403": error("Not your card"), "404": error("No such card"),
            "413": error("The body is over 64 KiB"),
          ]),
        "delete": operation(
          "deleteCard", "Deletes a card (CARD.DEL)", secured: true, parameters: [idParameter],
          responses: [
            "204": ["description": "Deleted"], "403": error("Not your card"),
            "404": error("No such card"),
          ]),
      ],
      "/v1/wallet": [
        "get": operation(
          "wallet", "The wallet, newest first (WALLET.LIST)", secured: true,
          parameters: [
            query(
              "count", required: false,
              [
                "type": "integer", "minimum": 1, "maximum": Wallets.maxListCount,
                "default": WalletPage.defaultCount,
              ], "At most this many"),
            query(
              "cursor", required: false,
              ["type": "string", "pattern": "^(0|[0-9]{1,18}-[0-9]{1,18})$"],
              "The previous page's `next`; 0 (or none) for the newest"),
          ],
          responses: [
            "200": body("A page", ref("WalletPage")), "400": error("Bad count or cursor"),
          ]),
        "post": operation(
          "addToWallet", "Adds another account's card by share code or URL (WALLET.ADD)",
          secured: true, requestBody: ref("WalletAdd"),
          responses: [
            "200": body("The entry", ref("WalletEntry")),
            "400": error("Not a JSON object with a card"),
            "409": error("Your own card"), "404": error("No such card"),
            "410": error("The card is no longer active"),
            "429": limited("Past the look-ups by code an hour (the account's or the address's)"),
            "413": error("The body is over 64 KiB"),
          ]),
      ],
      "/v1/wallet/{cardId}": [
        "delete": operation(
          "removeFromWallet", "Removes a card from the wallet (WALLET.DEL)", secured: true,
          parameters: [
            [
              "name": "cardId", "in": "path", "required": true,
              "schema": ["type": "integer", "format": "int64"],
            ]
          ],
          responses: [
            "204": ["description": "Removed"], "404": error("Not in the wallet"),
          ])
      ],
      "/v1/assets": [
        "put": operation(
          "putAsset", "Uploads a picture, logo or CV (ASSET.PUT), served at its url", secured: true,
          parameters: [
            query(
              "kind", required: true, ["type": "string", "enum": ["image", "logo", "cv"]],
              "image and logo take JPEG, PNG or WebP; cv takes PDF")
          ],
          requestBody: ["type": "string", "format": "binary"],
          bodyTypes: ["image/jpeg", "image/png", "image/webp", "application/pdf"],
          responses: [
            "201": body(
              "Stored", ref("Asset"), headers: ["Location": ["schema": ["type": "string"]]]),
            "400": error("No or an unknown kind, or no body"),
            "413": error("Over the upload bound (--max-upload-bytes) or the account's quota"),
            "415": error("Not a whole file of a type the kind takes"),
            "422": error("An image of too many pixels"),
            "429": limited("Past the uploads an hour (--uploads-per-hour)"),
          ])
      ],
      path: [
        "get": operation(
          "openapi", "This document",
          responses: ["200": body("OpenAPI 3.1", ["type": "object"])])
      ],
    ]
  }

  /// A decimal longitude, -180 to 180, and latitude, -90 to 90, as a bbox's corners take them.
  static let longitude = "-?(180(\\.0+)?|(1[0-7][0-9]|[1-9]?[0-9])(\\.[0-9]+)?)"
  static let latitude = "-?(90(\\.0+)?|[1-8]?[0-9](\\.[0-9]+)?)"

  static var idParameter: [String: Any] {
    [
      "name": "id", "in": "path", "required": true, "description": "A card id or share code",
      "schema": ["type": "string", "pattern": "^[A-Za-z0-9]{1,32}$"],
    ]
  }

  static func operation(
    _ id: String, _ summary: String, secured: Bool = false, parameters: [[String: Any]] = [],
    requestBody: [String: Any]? = nil, bodyTypes: [String] = ["application/json"],
    responses: [String: Any]
  ) -> [String: Any] {
    var responses = responses
    var operation: [String: Any] = ["operationId": id, "summary": summary]
    if !parameters.isEmpty { operation["parameters"] = parameters }
    if let requestBody {
      operation["requestBody"] = [
        "required": true,
        "content": Dictionary(
          uniqueKeysWithValues: bodyTypes.map { ($0, ["schema": requestBody]) }),
      ]
    }
    if secured {
      operation["security"] = [["bearer": [String]()]]
      responses["401"] = error("No, or an invalid, session token")
    }
    operation["responses"] = responses
    return operation
  }

  static func query(
    _ name: String, required: Bool, _ schema: [String: Any], _ description: String
  ) -> [String: Any] {
    [
      "name": name, "in": "query", "required": required, "schema": schema,
      "description": description,
    ]
  }

  static func number(_ minimum: Double, _ maximum: Double) -> [String: Any] {
    ["type": "number", "minimum": minimum, "maximum": maximum]
  }

  static func ref(_ name: String) -> [String: Any] { ["$ref": "#/components/schemas/\(name)"] }

  static func body(
    _ description: String, _ schema: [String: Any], type: String = "application/json",
    headers: [String: Any]? = nil, links: [String: Any]? = nil
  ) -> [String: Any] {
    var response: [String: Any] = [
      "description": description, "content": [type: ["schema": schema]],
    ]
    response["headers"] = headers
    response["links"] = links
    return response
  }

  /// What a new card's id leads to (schemathesis follows these in its stateful phase).
  static var cardLinks: [String: Any] {
    Dictionary(
      uniqueKeysWithValues: ["getCard", "updateCard", "deleteCard"].map {
        ($0, ["operationId": $0, "parameters": ["id": "$response.body#/id"]])
      })
  }

  static func error(_ description: String) -> [String: Any] {
    body(description, ref("Error"))
  }

  /// A 429: the limit's message, and when to try again.
  static func limited(_ description: String) -> [String: Any] {
    body(
      description, ref("Error"),
      headers: [
        "Retry-After": [
          "required": true, "description": "Seconds until the limit lets the request through",
          "schema": ["type": "integer", "minimum": 0],
        ]
      ])
  }
}
