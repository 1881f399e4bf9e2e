import Cards
import Foundation

/// The web's card form: the fields a card's owner sets most, read from a submitted form or a
/// card, and written as a new card's JSON or as a merge patch (an emptied field is cleared).
/// What the fields may hold is the domain's to say (`CardFields`), as for CARD.CREATE.
struct CardForm {
  /// The text inputs: the card field (a city and country are its address's), the label, the
  /// input's type and autocomplete.
  static let inputs: [(name: String, label: String, type: String, autocomplete: String)] = [
    ("firstName", "First name", "text", "given-name"),
    ("lastName", "Last name", "text", "family-name"),
    ("jobTitle", "Job title", "text", "organization-title"),
    ("company", "Company", "text", "organization"),
    ("email", "Email", "email", "email"),
    ("phoneNumber", "Phone", "tel", "tel"),
    ("city", "City", "text", "address-level2"),
    ("country", "Country", "text", "country-name"),
  ]
  static let addressParts: Set<String> = ["city", "country"]

  var texts: [String: String] = [:]
  var aboutMe: String?
  var showOnMap = false
  /// A photo uploaded with the form (`/a/<id>`): set on the card; nil keeps the card's.
  var imageUrl: String?

  init() {}

  init(form: SubmittedForm) {
    for input in Self.inputs { texts[input.name] = form.text(input.name) }
    aboutMe = form.text("aboutMe")
    showOnMap = form["showOnMap"] != nil
  }

  init(card fields: CardFields) {
    texts = [
      "firstName": fields.firstName, "lastName": fields.lastName, "jobTitle": fields.jobTitle,
      "company": fields.company, "email": fields.email, "phoneNumber": fields.phoneNumber,
      "city": fields.address?.city, "country": fields.address?.country,
    ].compactMapValues { $0 }
    aboutMe = fields.aboutMe
    showOnMap = fields.showOnMap
  }

  /// A card's name as its pages show it.
  static func name(_ fields: CardFields) -> String {
    [fields.firstName, fields.lastName].compactMap { $0 }.joined(separator: " ")
  }

  func fields(hasPhoto: Bool) -> [AccountPage.Field] {
    Self.inputs.map { input in
      AccountPage.Field(
        label: input.label, name: input.name, kind: .input(type: input.type),
        value: texts[input.name], autocomplete: input.autocomplete,
        required: input.name == "firstName")
    } + [
      AccountPage.Field(label: "About you", name: "aboutMe", kind: .textarea, value: aboutMe),
      AccountPage.Field(
        label: hasPhoto ? "A new photo (JPEG, PNG or WebP)" : "Photo (JPEG, PNG or WebP)",
        name: "photo", kind: .input(type: "file"), accept: "image/jpeg,image/png,image/webp"),
      AccountPage.Field(
        label: "Show the card on the map, at its city", name: "showOnMap",
        kind: .checkbox(checked: showOnMap)),
    ]
  }

  /// The card's JSON: a new card's (only what is set), or a merge patch that also clears what
  /// was emptied.
  func json(patch: Bool) -> String {
    let absent: Any? = patch ? NSNull() : nil
    var object: [String: Any] = ["showOnMap": showOnMap]
    var address: [String: Any] = [:]
    for input in Self.inputs {
      let value: Any? = texts[input.name] ?? absent
      if Self.addressParts.contains(input.name) {
        address[input.name] = value
      } else {
        object[input.name] = value
      }
    }
    if !address.isEmpty { object["address"] = address }
    object["aboutMe"] = aboutMe ?? absent
    if let imageUrl { object["imageUrl"] = imageUrl }
    let data =
      (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }
}
