import Testing

@testable import Cards

/// `CardFields` holds only the texts a card has (`SparseTexts`): each field reads what was last
/// set in it, whatever the order, and equal fields compare equal however they were made.
@Suite struct SparseFieldsTests {
  @Test("every text field and address part keeps its own value, set and unset in any order")
  func everyField() {
    var fields = CardFields(firstName: "Ana")
    for (i, field) in FieldRules.stringFields.enumerated().reversed() {
      fields[field] = "v\(i)"
    }
    fields.address = CardAddress(
      street: "s", city: "c", region: "r", postcode: "p", country: "n")
    for (i, field) in FieldRules.stringFields.enumerated() {
      #expect(fields[field] == "v\(i)", "\(field.name)")
    }
    #expect(
      fields.address
        == CardAddress(street: "s", city: "c", region: "r", postcode: "p", country: "n"))
    for (i, field) in FieldRules.stringFields.enumerated() where i % 2 == 0 {
      fields[field] = nil
    }
    for (i, field) in FieldRules.stringFields.enumerated() {
      #expect(fields[field] == (i % 2 == 0 ? nil : "v\(i)"), "\(field.name)")
    }
    fields.address?.city = nil
    #expect(fields.address == CardAddress(street: "s", region: "r", postcode: "p", country: "n"))
    fields.address = nil
    for field in FieldRules.stringFields { fields[field] = nil }
    #expect(fields == CardFields(firstName: "Ana"))
  }

  @Test("each rule's field is held under the key of its name, which its property reads")
  func rulesNameTheirKeys() {
    #expect(FieldRules.stringFields.count == 34)
    for field in FieldRules.stringFields {
      #expect("\(field.key)" == field.name)
    }
    var fields = CardFields(firstName: "Ana")
    for field in FieldRules.stringFields { fields[field] = field.name }
    let object = fields.jsonObject()
    for field in FieldRules.stringFields {
      #expect(object[field.name] as? String == field.name)
    }
    #expect(fields.middleName == "middleName" && fields.logoUrl == "logoUrl")
    #expect(fields.cvDisplayText == "cvDisplayText" && fields.twitter == "twitter")
  }

  @Test("fields set in another order, or set and unset, are equal")
  func equality() {
    var a = CardFields(firstName: "Ana")
    a.logoUrl = "https://x.org/l.png"
    a.middleName = "B"
    a.company = "Acme"
    var b = CardFields(
      firstName: "Ana", middleName: "B", company: "Acme", logoUrl: "https://x.org/l.png")
    #expect(a == b)
    b.company = nil
    #expect(a != b)
    #expect(b.middleName == "B" && b.logoUrl == "https://x.org/l.png")
    b.company = "Acme"
    #expect(a == b)
  }
}
