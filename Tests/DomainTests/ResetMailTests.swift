import Accounts
import DaemonTestSupport
import DomainTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// Password-reset mail through a real SMTP server (aiosmtpd), and the outbox when it fails.
@Suite("ResetMail")
struct ResetMailTests {
  /// aiosmtpd writing each message it accepts to a file: the envelope, then the data as
  /// received (after dot-unstuffing). With a user and password it requires AUTH, offering only
  /// the mechanisms given.
  static let sink = """
    import os, sys, threading, time
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword
    port, directory, user, password, mechanisms = sys.argv[1:6]
    class Sink:
        async def handle_DATA(self, server, session, envelope):
            name = os.path.join(directory, "%d.mail" % time.time_ns())
            with open(name + ".tmp", "wb") as f:
                f.write(("X-Envelope-From: %s\\r\\nX-Envelope-To: %s\\r\\nX-Auth: %s\\r\\n" % (
                    envelope.mail_from, ",".join(envelope.rcpt_tos),
                    session.auth_data if session.authenticated else "none")).encode())
                f.write(envelope.original_content)
            os.rename(name + ".tmp", name)
            return "250 OK"
    def check(server, session, envelope, mechanism, data):
        ok = isinstance(data, LoginPassword) and data.login == user.encode() \\
            and data.password == password.encode()
        return AuthResult(success=ok, handled=False, auth_data=mechanism if ok else None)
    everything = ["PLAIN", "LOGIN"]
    options = dict(auth_require_tls=False, auth_required=user != "-",
        auth_exclude_mechanism=[m for m in everything if m not in mechanisms.split(",")])
    if user != "-": options["authenticator"] = check
    controller = Controller(Sink(), hostname="127.0.0.1", port=int(port), **options)
    controller.start()
    print("listening", flush=True)
    threading.Event().wait()
    """

  /// An SMTP server writing messages under its directory's `mail`.
  static func smtpServer(
    user: String = "-", password: String = "-", mechanisms: String = "PLAIN,LOGIN"
  )
    throws -> BackgroundProgram
  {
    try BackgroundProgram(python: ["-c", sink, "{port}", "{dir}", user, password, mechanisms])
  }

  /// The messages received so far, waiting up to 5 s for `count`.
  static func messages(in directory: String, count: Int = 1) async throws -> [String] {
    for _ in 0..<100 {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
      let mails = names.filter { $0.hasSuffix(".mail") || $0.hasSuffix(".eml") }.sorted()
      if mails.count >= count {
        return try mails.map {
          try String(
            contentsOfFile: (directory as NSString).appendingPathComponent($0), encoding: .utf8)
        }
      }
      try await Task.sleep(for: .milliseconds(50))
    }
    return []
  }

  static func token(in mail: String) -> String? {
    mail.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
      .first { $0.count == 43 && !$0.contains(" ") && !$0.contains(":") }
  }

  /// Asks a reset for a new account through the protocol and answers the mail's token's use.
  static func requestAndReset(
    _ server: TestDaemon, mailIn directory: String
  ) async throws -> (mail: String, reset: String) {
    let c = try server.connect()
    _ = try c.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
    #expect(try c.text("ACCOUNT.RESET.REQUEST", "ana@x.org") == "OK")
    let mails = try await messages(in: directory)
    let mail = try #require(mails.first)
    let reset = try c.text("ACCOUNT.RESET", try #require(Self.token(in: mail)), "new-secret")
    #expect(try c.text("AUTH", "ana@x.org", "new-secret") == "OK")
    return (mail, reset)
  }

  @Test(
    "a reset mail goes to the SMTP server with AUTH PLAIN, with proper headers, and its token resets the password; nothing in the outbox"
  )
  func smtpPlain() async throws {
    let smtp = try Self.smtpServer(user: "mailer", password: "s3cret", mechanisms: "PLAIN")
    let server = try await TestDaemon(accounts: {
      var mailer = SMTPMailer(host: "127.0.0.1", port: Int(smtp.port))
      mailer.username = "mailer"
      mailer.password = "s3cret"
      mailer.from = "CardAtlas <accounts@cardatlas.test>"
      $0.mailer = mailer
    })
    let (mail, reset) = try await Self.requestAndReset(server, mailIn: smtp.directory)
    #expect(reset == "OK")
    #expect(mail.contains("X-Envelope-From: accounts@cardatlas.test\r\n"))
    #expect(mail.contains("X-Envelope-To: ana@x.org\r\n"))
    #expect(mail.contains("X-Auth: PLAIN\r\n"))
    for header in [
      "From: CardAtlas <accounts@cardatlas.test>\r\n", "To: ana@x.org\r\n",
      "Subject: Reset your CardAtlas password\r\n", "\r\nDate: ", "\r\nMessage-ID: <",
      "@cardatlas.test>\r\n", "Content-Type: text/plain; charset=utf-8\r\n",
    ] {
      #expect(mail.contains(header), "\(header)")
    }
    let outbox = (server.directory as NSString).appendingPathComponent("outbox")
    #expect(!FileManager.default.fileExists(atPath: outbox))
    await server.stop()
    smtp.stop()
  }

  @Test("AUTH LOGIN when it is the only mechanism offered; no AUTH when no user is set")
  func smtpLoginAndNoAuth() async throws {
    let smtp = try Self.smtpServer(user: "mailer", password: "s3cret", mechanisms: "LOGIN")
    let server = try await TestDaemon(accounts: {
      var mailer = SMTPMailer(host: "127.0.0.1", port: Int(smtp.port))
      mailer.username = "mailer"
      mailer.password = "s3cret"
      $0.mailer = mailer
    })
    let (mail, reset) = try await Self.requestAndReset(server, mailIn: smtp.directory)
    #expect(reset == "OK" && mail.contains("X-Auth: LOGIN\r\n"))
    await server.stop()
    smtp.stop()

    let open = try Self.smtpServer()
    let plain = try await TestDaemon(accounts: {
      $0.mailer = SMTPMailer(address: "127.0.0.1:\(open.port)")
    })
    let (mail2, reset2) = try await Self.requestAndReset(plain, mailIn: open.directory)
    #expect(reset2 == "OK" && mail2.contains("X-Auth: none\r\n"))
    await plain.stop()
    open.stop()
  }

  @Test("lines starting with a dot arrive unchanged (dot-stuffing), CRLF line ends")
  func dotStuffing() async throws {
    let smtp = try Self.smtpServer()
    let body = ".starts with a dot\n.\n..two\nlast line"
    try SMTPMailer(host: "127.0.0.1", port: Int(smtp.port))
      .send(to: "bo@x.org", subject: "dots", body: body)
    let mails = try await Self.messages(in: smtp.directory)
    let mail = try #require(mails.first)
    #expect(mail.hasSuffix("\r\n\r\n.starts with a dot\r\n.\r\n..two\r\nlast line\r\n"))
    smtp.stop()
  }

  @Test(
    "an unreachable SMTP server, or one that refuses the password: the reset is logged and left in the outbox, and its token works"
  )
  func fallsBackToOutbox() async throws {
    let log = CapturedLog()
    let nobody = try RedisProcess.freeLoopbackPort()
    let server = try await TestDaemon(accounts: {
      $0.mailer = SMTPMailer(host: "127.0.0.1", port: Int(nobody))
      $0.logger = log.logger
    })
    let outbox = (server.directory as NSString).appendingPathComponent("outbox")
    let (mail, reset) = try await Self.requestAndReset(server, mailIn: outbox)
    #expect(reset == "OK" && mail.contains("To: ana@x.org\r\n"))
    #expect(log.contains("mail not sent") && log.contains("cannot connect"))
    await server.stop()

    let smtp = try Self.smtpServer(user: "mailer", password: "s3cret")
    let refused = try await TestDaemon(accounts: {
      var mailer = SMTPMailer(host: "127.0.0.1", port: Int(smtp.port))
      mailer.username = "mailer"
      mailer.password = "wrong"
      $0.mailer = mailer
      $0.logger = log.logger
    })
    let outbox2 = (refused.directory as NSString).appendingPathComponent("outbox")
    let (_, reset2) = try await Self.requestAndReset(refused, mailIn: outbox2)
    #expect(reset2 == "OK")
    #expect(log.contains("AUTH: expected 235"))
    #expect(!log.contains("wrong"), "the password is never logged")
    await refused.stop()
    smtp.stop()
  }
}
