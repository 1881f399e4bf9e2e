import Foundation

/// The vCard versions a card is written in.
public enum VCardVersion: Int, Sendable, CaseIterable {
  /// RFC 2426: what most address books read; the default.
  case v3 = 3
  /// RFC 6350.
  case v4 = 4
}

/// A card as a vCard: what "save contact" puts in an address book. Text values escape `\`,
/// `,`, `;` and line breaks; URIs percent-encode those instead (they are not text); every line
/// ends in CRLF and is folded at 75 octets, never inside a UTF-8 character.
public enum VCard {
  public static func text(_ card: Card, pageURL: String?, version: VCardVersion) -> String {
    let f = card.fields
    let v4 = version == .v4
    var out = Lines()
    out.add("BEGIN:VCARD")
    out.add(v4 ? "VERSION:4.0" : "VERSION:3.0")
    out.add("PRODID:-//CardAtlas//Cards//EN")
    if v4 { out.add("KIND:individual") }
    out.add(
      "N:"
        + [f.lastName, f.firstName, f.middleName, f.prefix, f.credentials]
        .map { escape($0 ?? "") }.joined(separator: ";"))
    out.add("FN:" + escape(f.displayName))
    if let company = f.company { out.add("ORG:" + escape(company)) }
    if let title = f.jobTitle { out.add("TITLE:" + escape(title)) }
    let phones = [(f.phoneNumber, "cell"), (f.secondaryPhone, "work")]
      .compactMap { phone, type in phone.map { ($0, type) } }
    for (i, (phone, type)) in phones.enumerated() {
      if v4 {
        let pref = i == 0 ? ";PREF=1" : ""
        out.add(
          "TEL;VALUE=uri\(pref);TYPE=\"\(type),voice\":" + uri(CardFields.telURI(phone)))
      } else {
        let pref = i == 0 ? ",PREF" : ""
        out.add("TEL;TYPE=\(type.uppercased()),VOICE\(pref):" + escape(phone))
      }
    }
    if let email = f.email {
      out.add((v4 ? "EMAIL;PREF=1:" : "EMAIL;TYPE=INTERNET,PREF:") + escape(email))
    }
    if let a = f.address {
      out.add(
        (v4 ? "ADR;TYPE=work:" : "ADR;TYPE=WORK:")
          + ["", "", a.street, a.city, a.region, a.postcode, a.country]
          .map { escape($0 ?? "") }.joined(separator: ";"))
    }
    if let l = f.location {
      out.add(
        v4
          ? "GEO:geo:\(number(l.latitude)),\(number(l.longitude))"
          : "GEO:\(number(l.latitude));\(number(l.longitude))")
    }
    let note = [f.description, f.aboutMe].compactMap(\.self).joined(separator: "\n\n")
    if !note.isEmpty { out.add("NOTE:" + escape(note)) }
    if let photo = f.imageUrl { out.add((v4 ? "PHOTO:" : "PHOTO;VALUE=URI:") + uri(photo)) }
    if let logo = f.logoUrl { out.add((v4 ? "LOGO:" : "LOGO;VALUE=URI:") + uri(logo)) }
    if let pageURL { out.add("URL:" + uri(pageURL)) }
    for link in f.webLinks { if let url = link.url { out.add("URL:" + uri(url)) } }
    if let cv = f.cvUrl { out.add("URL:" + uri(cv)) }
    for social in f.socialLinks {
      out.add("X-SOCIALPROFILE;TYPE=\(social.network):" + uri(social.url))
    }
    out.add("REV:" + timestamp(card.updatedAt, basic: v4))
    out.add("END:VCARD")
    return out.text
  }

  /// A text value escaped: `\` `,` `;` backslashed, each line break (CRLF, CR or LF) as `\n`.
  public static func escape(_ value: String) -> String {
    var out = String.UnicodeScalarView()
    var afterCR = false
    for scalar in value.unicodeScalars {
      defer { afterCR = scalar == "\r" }
      switch scalar {
      case "\\", ",", ";":
        out.append("\\")
        out.append(scalar)
      case "\r": out.append(contentsOf: "\\n".unicodeScalars)
      case "\n": if !afterCR { out.append(contentsOf: "\\n".unicodeScalars) }
      default: out.append(scalar)
      }
    }
    return String(out)
  }

  /// A URI value: the characters a vCard line gives meaning to, and any control or space,
  /// percent-encoded (a URI is not a text value, so backslashes would be part of it).
  static func uri(_ value: String) -> String {
    var out = ""
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\\"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\""), 0...32,
        127:
        out += String(format: "%%%02X", byte)
      default: out.unicodeScalars.append(Unicode.Scalar(byte))
      }
    }
    return out
  }

  private static func number(_ degrees: Double) -> String {
    String(format: "%.6f", degrees)
  }

  /// UTC: `2026-11-25T21:00:00Z` for 3.0, the basic `20261125T210000Z` for 4.0.
  private static func timestamp(_ date: Date, basic: Bool) -> String {
    let text = date.formatted(Date.ISO8601FormatStyle())
    return basic ? text.filter { $0 != "-" && $0 != ":" } : text
  }

  /// A content line folded at 75 octets and ended with CRLF: a continuation line starts with a
  /// space, which counts; a UTF-8 character's bytes stay on one line.
  public static func fold(_ line: String) -> String {
    var text = ""
    var octets = 0
    for scalar in line.unicodeScalars {
      let size = UTF8.width(scalar)
      if octets + size > 75 {
        text += "\r\n "
        octets = 1
      }
      text.unicodeScalars.append(scalar)
      octets += size
    }
    return text + "\r\n"
  }

  /// Content lines, each folded.
  struct Lines {
    private(set) var text = ""

    mutating func add(_ line: String) { text += VCard.fold(line) }
  }
}

extension Cards {
  /// The card's vCard, with its share URL while it is active.
  public func vCard(_ card: Card, version: VCardVersion) -> String {
    VCard.text(card, pageURL: url(of: card), version: version)
  }
}
