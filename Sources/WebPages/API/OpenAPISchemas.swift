/// The OpenAPI document's schemas: the replies' shapes (`CardJSON`, `CardSummary`,
/// `CardGeoJSON`). Open objects: a card has many optional fields (docs/PROTOCOL.md lists them).
extension OpenAPIDocument {
  enum Schemas {
    static var string: [String: Any] { ["type": "string"] }
    static var integer: [String: Any] { ["type": "integer"] }
    static var boolean: [String: Any] { ["type": "boolean"] }
    static var number: [String: Any] { ["type": "number"] }
    static var time: [String: Any] { ["type": "string", "format": "date-time"] }

    /// Some of a card's fields (validation checks each: docs/PROTOCOL.md).
    static var fields: [String: Any] {
      let line: [String: Any] = [
        "type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[^\\r\\n]+$",
      ]
      return [
        "firstName": line, "lastName": line, "jobTitle": line, "company": line,
        "description": line, "showOnMap": boolean,
        "location": [
          "type": "object", "required": ["lon", "lat"], "additionalProperties": false,
          "properties": [
            "lon": ["type": "number", "minimum": -180, "maximum": 180],
            "lat": ["type": "number", "minimum": -85.05112878, "maximum": 85.05112878],
          ],
        ],
      ]
    }

    static var all: [String: Any] {
      [
        "Asset": [
          "type": "object", "required": ["id", "url", "kind", "contentType", "bytes"],
          "properties": [
            "id": string, "url": string, "kind": ["enum": ["image", "logo", "cv"]],
            "contentType": string, "bytes": integer, "width": integer, "height": integer,
          ],
        ],
        "Error": [
          "type": "object", "required": ["error"], "properties": ["error": string],
        ],
        "CardInput": [
          "type": "object", "required": ["firstName"], "additionalProperties": false,
          "description": "A card's fields as CARD.CREATE takes them (docs/PROTOCOL.md lists all)",
          "properties": fields,
        ],
        "CardPatch": [
          "type": "object", "additionalProperties": false,
          "description": "An RFC 7396 merge patch of the fields: null removes one",
          "properties": fields.mapValues { ["anyOf": [$0, ["type": "null"]]] },
        ],
        "Card": [
          "type": "object",
          "required": ["id", "ownerId", "slug", "isPrimary", "isActive", "createdAt", "updatedAt"],
          "properties": [
            "id": integer, "ownerId": integer, "slug": string, "isPrimary": boolean,
            "isActive": boolean, "createdAt": time, "updatedAt": time, "code": string,
            "url": string, "firstName": string, "showOnMap": boolean,
          ],
        ],
        "CardSummary": [
          "type": "object", "required": ["id", "firstName"],
          "properties": [
            "id": integer, "firstName": string, "prefix": string, "lastName": string,
            "jobTitle": string, "company": string, "imageUrl": string, "city": string,
            "url": string,
          ],
        ],
        "NearbyCard": [
          "allOf": [
            OpenAPIDocument.ref("CardSummary"),
            [
              "type": "object", "required": ["distance", "longitude", "latitude"],
              "properties": ["distance": number, "longitude": number, "latitude": number],
            ],
          ]
        ],
        "FeatureCollection": [
          "type": "object", "required": ["type", "features"],
          "properties": [
            "type": ["const": "FeatureCollection"],
            "features": ["type": "array", "items": OpenAPIDocument.ref("Feature")],
          ],
        ],
        "Feature": [
          "type": "object", "required": ["type", "geometry", "properties"],
          "properties": [
            "type": ["const": "Feature"],
            "geometry": [
              "type": "object", "required": ["type", "coordinates"],
              "properties": [
                "type": ["const": "Point"],
                "coordinates": [
                  "type": "array", "items": number, "minItems": 2, "maxItems": 2,
                ],
              ],
            ],
            "properties": [
              "type": "object", "required": ["cluster"],
              "description":
                "A cluster: count and expansionZoom; a card: its summary (CardSummary)",
              "properties": [
                "cluster": boolean, "count": integer, "expansionZoom": integer,
              ],
            ],
          ],
        ],
        "WalletEntry": [
          "type": "object", "required": ["id", "isActive", "addedAt"],
          "description": "The card as its holder sees it; an inactive card shows only its id",
          "properties": ["id": integer, "isActive": boolean, "addedAt": time],
        ],
        "WalletPage": [
          "type": "object", "required": ["cards", "next"],
          "properties": [
            "cards": ["type": "array", "items": OpenAPIDocument.ref("WalletEntry")],
            "next": ["type": ["string", "null"]],
          ],
        ],
        "WalletAdd": [
          "type": "object", "required": ["card"],
          "properties": ["card": ["type": "string", "description": "A share code or share URL"]],
        ],
      ]
    }
  }
}
