import Cards

/// What the card template shows of a card: only the fields that are set, each with its link.
/// Values go in as they are; the template escapes them.
enum CardPageModel {
  static func context(_ card: Card, url: String?, publicURL: String) -> [String: Any] {
    let f = card.fields
    var page: [String: Any] = [
      "title": f.displayName, "name": f.displayName,
      "initials": initials(f), "vcard": vcardPath(url: url, publicURL: publicURL, card: card),
    ]
    page["picture"] = f.imageUrl.flatMap { ownPath($0, publicURL) }
    page["logo"] = f.logoUrl.flatMap { ownPath($0, publicURL) }
    page["pronouns"] = f.pronouns
    let role = [f.jobTitle, f.company].compactMap(\.self).joined(separator: " · ")
    if !role.isEmpty { page["role"] = role }
    page["tagline"] = f.description
    page["url"] = url
    var contacts: [[String: Any]] = []
    if let phone = f.phoneNumber {
      contacts.append(["label": "Mobile", "text": phone, "href": CardFields.telURI(phone)])
    }
    if let phone = f.secondaryPhone {
      contacts.append(["label": "Work", "text": phone, "href": CardFields.telURI(phone)])
    }
    if let email = f.email {
      contacts.append(["label": "Email", "text": email, "href": "mailto:" + email])
    }
    if let address = f.address {
      let lines = [
        address.street, [address.postcode, address.city].compactMap(\.self).joined(separator: " "),
        address.region, address.country,
      ].compactMap { $0 }.filter { !$0.isEmpty }
      contacts.append(["label": "Address", "text": lines.joined(separator: ", ")])
    }
    page["contacts"] = contacts
    page["hasContacts"] = !contacts.isEmpty
    let social = f.socialLinks.filter { isWeb($0.url) }.map {
      ["network": $0.network, "label": $0.label, "url": $0.url]
    }
    page["social"] = social
    page["hasSocial"] = !social.isEmpty
    page["about"] = f.aboutMe
    if let message = f.customMessage {
      page["message"] = ["header": f.customMessageHeader ?? "Message", "text": message]
    }
    let links = f.webLinks.compactMap { link in
      link.url.flatMap { isWeb($0) ? ["url": $0, "text": link.displayText ?? $0] : nil }
    }
    page["links"] = links
    page["hasLinks"] = !links.isEmpty
    if let cv = f.cvUrl, isWeb(cv) {
      var section: [String: Any] = [
        "url": cv, "header": f.cvHeader ?? "CV", "text": f.cvDisplayText ?? "Download CV",
      ]
      section["description"] = f.cvDescription
      page["cv"] = section
    }
    return page
  }

  /// The vCard's path beside the page's: `/c/<username>[/<slug>]/card.vcf`.
  static func vcardPath(url: String?, publicURL: String, card: Card) -> String {
    guard let url, url.hasPrefix(publicURL) else { return "card.vcf" }
    return String(url.dropFirst(publicURL.count)) + "/card.vcf"
  }

  /// A picture the page may show: one this server serves (under the public URL), as a path,
  /// so that the page makes no request elsewhere (the CSP allows images from itself only).
  static func ownPath(_ url: String, _ publicURL: String) -> String? {
    guard url.hasPrefix(publicURL + "/") else { return nil }
    return String(url.dropFirst(publicURL.count))
  }

  /// Only http(s) links are written as links; validation allows no other, and this keeps a
  /// `javascript:` URL from ever reaching an href should one be stored some other way.
  static func isWeb(_ url: String) -> Bool {
    let lower = url.lowercased()
    return lower.hasPrefix("https://") || lower.hasPrefix("http://")
  }

  static func initials(_ f: CardFields) -> String {
    [f.firstName.first, f.lastName?.first].compactMap { $0.map(String.init) }.joined()
      .uppercased()
  }
}
