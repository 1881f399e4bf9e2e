import Cards
import PreviewImages

/// What the card template shows of a card: only the fields that are set, each with its link.
/// Values go in as they are; the template escapes them.
enum CardPageModel {
  static func context(_ card: Card, url: String?, publicURL: String) -> [String: Any] {
    let f = card.fields
    let base = basePath(url: url, publicURL: publicURL)
    var page: [String: Any] = [
      "title": f.displayName, "name": f.displayName,
      "initials": initials(f), "vcard": (base.map { $0 + "/" } ?? "") + "card.vcf",
    ]
    page["picture"] = f.imageUrl.flatMap { ownPath($0, publicURL) }
    page["logo"] = f.logoUrl.flatMap { ownPath($0, publicURL) }
    page["banner"] = f.bannerUrl.flatMap { ownPath($0, publicURL) }
    page["pronouns"] = f.pronouns
    page["role"] = role(f)
    page["tagline"] = f.description
    page["summary"] = summary(f)
    page["url"] = url
    // The link preview's image and the code to scan, beside the page.
    if let url, let base {
      page["preview"] = url + "/og.png"
      page["qr"] = base + "/qr.svg"
    }
    if let theme = theme(f) {
      page["theme"] = ["color": theme.color, "css": theme.css]
    }
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

  /// The page's path, `/c/<username>[/<slug>]`, under which its vCard, QR code and preview
  /// image are.
  static func basePath(url: String?, publicURL: String) -> String? {
    guard let url, url.hasPrefix(publicURL) else { return nil }
    return String(url.dropFirst(publicURL.count))
  }

  /// "Job title · Company", either alone, or nil.
  static func role(_ f: CardFields) -> String? {
    let role = [f.jobTitle, f.company].compactMap(\.self).joined(separator: " · ")
    return role.isEmpty ? nil : role
  }

  /// What a link preview says under the name: the role and the tagline.
  static func summary(_ f: CardFields) -> String? {
    let summary = [role(f), f.description].compactMap(\.self).joined(separator: " — ")
    return summary.isEmpty ? nil : summary
  }

  /// The card's theme colour as the page applies it: the accent and the text on it, in a style
  /// sheet of its own (the CSP allows it by its hash). Written from the parsed colour, so that
  /// nothing but hex digits reaches the style sheet whatever the stored text.
  static func theme(_ f: CardFields) -> (color: String, css: String)? {
    guard let hex = f.themeColor, let color = RGB(hex: hex) else { return nil }
    return (color.hex, ":root{--accent:\(color.hex);--on-accent:\(color.readableText.hex)}")
  }

  /// What the card's preview image shows.
  static func preview(_ card: Card, url: String) -> CardPreview {
    let f = card.fields
    let address = url.range(of: "://").map { String(url[$0.upperBound...]) } ?? url
    return CardPreview(
      name: f.displayName, initials: initials(f), role: role(f), tagline: f.description,
      address: address, theme: f.themeColor.flatMap { RGB(hex: $0) })
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
