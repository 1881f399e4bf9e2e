/// The OpenAPI document's schemas: the replies' shapes (`CardJSON`, `CardSummary`,
/// `CardGeoJSON`). Open objects: a card has many optional fields (docs/PROTOCOL.md lists them).
extension OpenAPIDocument {
  enum Schemas {
    static var string: [String: Any] { ["type": "string"] }
    static var integer: [String: Any] { ["type": "integer"] }
    static var boolean: [String: Any] { ["type": "boolean"] }
    static var number: [String: Any] { ["type": "number"] }
    static var time: [String: Any] { ["type": "string", "format": "date-time"] }

    /// A character of one line of text, as `FieldRules.textProblem` takes it: no control
    /// character but tab, no line break.
    static let lineCharacter = "[^\\u0000-\\u0008\\u000A-\\u001F\\u007F-\\u009F\\u2028\\u2029]"

    /// One line of at most `maximum` characters. Surrounding white space is trimmed, and an
    /// optional field left empty is absent; a required one needs a character that is not
    /// white space.
    static func line(_ maximum: Int, required: Bool = false) -> [String: Any] {
      let visible = "[^\\s\\u0000-\\u001F\\u007F-\\u009F]"
      let pattern =
        required ? "^\(lineCharacter)*\(visible)\(lineCharacter)*$" : "^\(lineCharacter)*$"
      return ["type": "string", "maxLength": maximum, "pattern": pattern]
    }

    /// An optional string that is `value` or nothing: surrounding white space is trimmed, and
    /// an optional field left empty is absent.
    static func trimmed(_ value: String, maxLength: Int? = nil) -> [String: Any] {
      var schema: [String: Any] = [
        "type": "string", "pattern": "^[ \\t\\r\\n]*(\(value))?[ \\t\\r\\n]*$",
      ]
      schema["maxLength"] = maxLength
      return schema
    }

    /// `#rrggbb`, as `FieldRules.keptColor` takes it.
    static let color = "#[0-9A-Fa-f]{6}"

    /// Some of the http(s) URLs `FieldRules.urlProblem` takes (a host of ASCII labels, no port,
    /// a path of unreserved characters): a schema cannot say which hosts look like others, nor
    /// which of this server's `/a/` URLs name the caller's own uploads.
    static let imageURL =
      "[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9]+(\\.[A-Za-z0-9]+)*(/[A-Za-z0-9._~!$&'()*+,;=:@%-]*)*"

    /// Some of a card's fields (validation checks each: docs/PROTOCOL.md); `firstName` is
    /// added by the schemas that take it.
    static var fields: [String: Any] {
      [
        "lastName": line(100), "jobTitle": line(150), "company": line(150),
        "description": line(300), "showOnMap": boolean,
        "themeColor": trimmed(color),
        "bannerUrl": trimmed(imageURL, maxLength: 2_048),
        "location": [
          "type": "object", "required": ["lon", "lat"], "additionalProperties": false,
          "properties": [
            "lon": ["type": "number", "minimum": -180, "maximum": 180],
            "lat": ["type": "number", "minimum": -85.05112878, "maximum": 85.05112878],
          ],
        ],
      ]
    }

    /// The fields as a card's JSON input takes them: null is an absent field (it removes one
    /// in a patch), but for firstName, which a card always has.
    static var nullableFields: [String: Any] {
      fields.mapValues { ["anyOf": [$0, ["type": "null"]]] }
        .merging(["firstName": line(100, required: true)]) { $1 }
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
        "Place": [
          "type": "object", "required": ["lon", "lat", "label", "confidence", "provider", "name"],
          "properties": [
            "lon": ["type": "number"], "lat": ["type": "number"], "label": string,
            "confidence": ["type": "number", "minimum": 0, "maximum": 1], "provider": string,
            "name": string, "region": string, "country": string, "countryCode": string,
            "postcode": string,
          ],
        ],
        "CardInput": [
          "type": "object", "required": ["firstName"], "additionalProperties": false,
          "description": "A card's fields as CARD.CREATE takes them (docs/PROTOCOL.md lists all)",
          "properties": nullableFields,
        ],
        "CardPatch": [
          "type": "object", "additionalProperties": false,
          "description": "An RFC 7396 merge patch of the fields: null removes one",
          "properties": nullableFields,
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
