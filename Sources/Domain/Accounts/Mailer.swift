import Foundation
import Logging

/// Sends the mail accounts need (password resets).
public protocol Mailer: Sendable {
  func send(to: String, subject: String, body: String) throws
}

/// A message in Internet Message Format (RFC 5322), CRLF line ends.
enum MailMessage {
  static func format(from: String, to: String, subject: String, body: String, date: Date)
    -> String
  {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
    let domain = address(from).split(separator: "@").last.map(String.init) ?? "localhost"
    let lines = body.split(separator: "\n", omittingEmptySubsequences: false).map {
      $0.hasSuffix("\r") ? $0.dropLast() : $0
    }
    return
      ([
        "From: \(from)", "To: \(to)", "Subject: \(subject)",
        "Date: \(formatter.string(from: date))",
        "Message-ID: <\(UUID().uuidString.lowercased())@\(domain)>", "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit", "",
      ] + lines.map(String.init)).joined(separator: "\r\n")
  }

  /// The bare address of `Name <address>`, or the whole text.
  static func address(_ mailbox: String) -> String {
    guard let open = mailbox.lastIndex(of: "<"), let close = mailbox.lastIndex(of: ">"),
      open < close
    else { return mailbox.trimmingCharacters(in: .whitespaces) }
    return String(mailbox[mailbox.index(after: open)..<close])
  }
}

/// The default mailer: each message is a file in an outbox directory, in Internet Message
/// Format, for an admin to read or hand to a mail system.
public struct OutboxMailer: Mailer {
  public let directory: String
  public var from = "CardAtlas <noreply@localhost>"

  public init(directory: String) { self.directory = directory }

  public func send(to: String, subject: String, body: String) throws {
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true)
    let now = Date()
    let message = MailMessage.format(from: from, to: to, subject: subject, body: body, date: now)
    let name = "\(Int(now.timeIntervalSince1970 * 1000))-\(UUID().uuidString).eml"
    let path = (directory as NSString).appendingPathComponent(name)
    try Data(message.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
  }
}

/// A configured mailer (SMTP) that, when a send fails, logs why and leaves the message in the
/// outbox instead, so that no reset is lost silently.
struct FallbackMailer: Mailer {
  let primary: any Mailer
  let fallback: OutboxMailer
  let logger: Logger

  func send(to: String, subject: String, body: String) throws {
    do {
      try primary.send(to: to, subject: subject, body: body)
    } catch {
      logger.error(
        "mail not sent, left in the outbox",
        metadata: ["error": "\(error)", "outbox": "\(fallback.directory)"])
      try fallback.send(to: to, subject: subject, body: body)
    }
  }
}
