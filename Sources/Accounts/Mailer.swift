import Foundation

/// Sends the mail accounts need (password resets).
public protocol Mailer: Sendable {
  func send(to: String, subject: String, body: String) throws
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
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
    let message = [
      "From: \(from)", "To: \(to)", "Subject: \(subject)", "Date: \(formatter.string(from: now))",
      "Content-Type: text/plain; charset=utf-8", "", body,
    ].joined(separator: "\r\n")
    let name = "\(Int(now.timeIntervalSince1970 * 1000))-\(UUID().uuidString).eml"
    let path = (directory as NSString).appendingPathComponent(name)
    try Data(message.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
  }
}
