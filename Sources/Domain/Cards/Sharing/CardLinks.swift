/// One of a card's social profiles as a link: the network's name, what a page shows, the URL.
public struct SocialLink: Sendable, Equatable {
  /// Lowercase, one word (`linkedin`, `x`): a vCard's X-SOCIALPROFILE type, a page's class.
  public let network: String
  public let label: String
  public let url: String
}

/// How a card's fields read and link wherever the card is shared (its web page, its vCard), so
/// both say the same.
extension CardFields {
  /// The name as one line: prefix, given, middle and family names, then credentials.
  public var displayName: String {
    let name = [prefix, firstName, middleName, lastName].compactMap(\.self).joined(separator: " ")
    return credentials.map { "\(name), \($0)" } ?? name
  }

  /// The social fields that are set, as profile URLs (LinkedIn and X handles made into theirs),
  /// in the card model's order.
  public var socialLinks: [SocialLink] {
    let fields: [(String, String, String?)] = [
      ("linkedin", "LinkedIn", linkedIn.map { Self.profile($0, "https://www.linkedin.com/in/") }),
      ("x", "X", twitter.map { Self.profile($0, "https://x.com/") }),
      ("facebook", "Facebook", facebookUrl), ("instagram", "Instagram", instagramUrl),
      ("tiktok", "TikTok", tiktokUrl), ("youtube", "YouTube", youtubeUrl),
      ("discord", "Discord", discordUrl), ("twitch", "Twitch", twitchUrl),
      ("snapchat", "Snapchat", snapchatUrl), ("telegram", "Telegram", telegramUrl),
      ("whatsapp", "WhatsApp", whatsappUrl), ("threads", "Threads", threadsUrl),
    ]
    return fields.compactMap { network, label, url in
      url.map { SocialLink(network: network, label: label, url: $0) }
    }
  }

  /// A phone number as a `tel:` URI (RFC 3966): its digits, after its `+` if it has one; the
  /// spaces, dashes and parentheses validation allows are only visual.
  public static func telURI(_ phone: String) -> String {
    let digits = phone.filter { $0.isASCII && $0.isNumber }
    return "tel:" + (phone.hasPrefix("+") ? "+" : "") + digits
  }

  /// A URL as it is, a bare handle (validation allows only those two) under `base`.
  private static func profile(_ value: String, _ base: String) -> String {
    value.hasPrefix("https://") || value.hasPrefix("http://") ? value : base + value
  }
}
