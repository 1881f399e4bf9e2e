import Foundation

/// Hands mail to an SMTP server (RFC 5321): EHLO (HELO if refused), AUTH PLAIN or LOGIN when a
/// user is set, then one message. Plain TCP only: no STARTTLS, so use a relay on the same host
/// or a trusted network.
public struct SMTPMailer: Mailer {
  public var host: String
  public var port: Int
  public var username: String?
  public var password: String?
  /// The From header; its address is also the envelope sender.
  public var from = "CardAtlas <noreply@localhost>"
  /// Seconds for the connection and for each reply.
  public var timeout: Double = 10

  public init(host: String, port: Int) {
    self.host = host
    self.port = port
  }

  /// `host:port` (port 25 when left out; `[v6]:port` for an IPv6 address).
  public init?(address: String) {
    var text = Substring(address)
    var portText: Substring = "25"
    if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
      let rest = text[text.index(after: close)...]
      if rest.hasPrefix(":") { portText = rest.dropFirst() } else if !rest.isEmpty { return nil }
      text = text[text.index(after: text.startIndex)..<close]
    } else if let colon = text.lastIndex(of: ":") {
      portText = text[text.index(after: colon)...]
      text = text[..<colon]
    }
    guard !text.isEmpty, let port = Int(portText), (1...65_535).contains(port) else { return nil }
    self.init(host: String(text), port: port)
  }

  public struct Failure: Error, CustomStringConvertible {
    public let description: String
  }

  public func send(to: String, subject: String, body: String) throws {
    let connection = try SMTPConnection(host: host, port: port, timeout: timeout)
    defer { connection.close() }
    try connection.expect(220)
    let hostName = ProcessInfo.processInfo.hostName
    var (code, lines) = try connection.command("EHLO \(hostName)")
    if code != 250 { try connection.command("HELO \(hostName)", expect: 250) }
    if let username, let password {
      // The AUTH line lists the mechanisms offered, as "AUTH PLAIN LOGIN".
      let offered =
        lines.first { $0.uppercased().hasPrefix("AUTH") }?.uppercased()
        .split(whereSeparator: { $0 == " " || $0 == "=" }) ?? []
      try authenticate(connection, username, password, offered: offered.map(String.init))
    }
    try connection.command("MAIL FROM:<\(MailMessage.address(from))>", expect: 250)
    (code, lines) = try connection.command("RCPT TO:<\(to)>")
    guard code == 250 || code == 251 else { throw Failure(description: "RCPT TO: \(code)") }
    try connection.command("DATA", expect: 354)
    let message = MailMessage.format(from: from, to: to, subject: subject, body: body, date: Date())
    // Dot-stuffing: a line that starts with "." gets another, so none ends the data early.
    let stuffed = message.split(separator: "\r\n", omittingEmptySubsequences: false).map {
      $0.hasPrefix(".") ? "." + $0 : String($0)
    }
    try connection.write(stuffed.joined(separator: "\r\n") + "\r\n.\r\n")
    try connection.expect(250)
    _ = try? connection.command("QUIT")
  }

  private func authenticate(
    _ connection: SMTPConnection, _ username: String, _ password: String, offered: [String]
  ) throws {
    let base64 = { (text: String) in Data(text.utf8).base64EncodedString() }
    if offered.contains("PLAIN") || !offered.contains("LOGIN") {
      try connection.command("AUTH PLAIN \(base64("\0\(username)\0\(password)"))", expect: 235)
    } else {
      try connection.command("AUTH LOGIN", expect: 334)
      try connection.command(base64(username), expect: 334)
      try connection.command(base64(password), expect: 235)
    }
  }
}
