import Foundation
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import RedisTestSupport
import Synchronization
import Testing

/// The accounts of nodes that share one PostgreSQL: made, signed in, changed and deleted on one
/// node, as every other node then holds them; emails unique across nodes.
@Suite("Accounts across nodes over PostgreSQL", .serialized)
struct AccountsAcrossNodesTests {
  /// Returns once the node on `to` has applied everything the node on `from` committed before:
  /// a marker written on `from` after it is read back on `to` (the feed applies in commit
  /// order). Over connections of their own: a signed-in account may not touch the keyspace.
  static func synced(from: UInt16, to: UInt16) async throws {
    let mark = UUID().uuidString
    #expect(try RESPConnection(port: from).text("SET", "sync-mark", mark) == "OK")
    let reader = try RESPConnection(port: to)
    for _ in 0..<400 {
      if try reader.text("GET", "sync-mark") == mark { return }
      try await Task.sleep(for: .milliseconds(25))
    }
    Issue.record("the other node never applied the marker")
  }

  @Test(
    "an account made on one node signs in on another; a session opened there resumes here; a password changed or an account deleted on one node signs out connections on the other; a node restarted loads them"
  )
  func accountsTravel() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let a = try NodesOverRESPTests.node(url, directory + "/a")
      var b = try NodesOverRESPTests.node(url, directory + "/b")
      let onA = try RESPConnection(port: a.port)
      var onB = try RESPConnection(port: b.port)
      let made = try onA.object("ACCOUNT.CREATE", "ana@x.org", "secret1")
      try await Self.synced(from: a.port, to: b.port)
      #expect(try onB.text("AUTH", "ana@x.org", "secret1") == "OK")
      #expect(try onB.object("WHOAMI")["id"] as? Int == made["id"] as? Int)
      // The same email on the other node: the sign-up's decoy reply, and no second account.
      let other = try RESPConnection(port: b.port)
      _ = try other.object("ACCOUNT.CREATE", "ANA@x.org", "secret9")
      #expect(try other.text("AUTH", "ana@x.org", "secret9").hasPrefix("WRONGPASS"))

      let token = try onA.text("SESSION.OPEN", "ana@x.org", "secret1", "phone")
      try await Self.synced(from: a.port, to: b.port)
      let resumed = try RESPConnection(port: b.port)
      #expect(try resumed.object("SESSION.RESUME", token)["email"] as? String == "ana@x.org")

      // A password changed on A: B's signed-in connections are signed out, the session ends.
      #expect(try onA.text("AUTH", "ana@x.org", "secret1") == "OK")
      #expect(try onA.text("ACCOUNT.PASSWORD", "secret1", "secret2") == "OK")
      try await Self.synced(from: a.port, to: b.port)
      #expect(try onB.text("WHOAMI").hasPrefix("NOAUTH"), "B's AUTH ended")
      #expect(try resumed.text("WHOAMI").hasPrefix("NOAUTH"), "B's session ended")
      let fresh = try RESPConnection(port: b.port)
      #expect(try fresh.text("SESSION.RESUME", token).hasPrefix("INVALID token"))
      #expect(try fresh.text("AUTH", "ana@x.org", "secret1").hasPrefix("WRONGPASS"))
      #expect(try fresh.text("AUTH", "ana@x.org", "secret2") == "OK")

      // B restarted after kill -9 loads what A wrote; a session opened on B resumes on A.
      try await b.crash(after: .zero)
      b = try NodesOverRESPTests.node(url, directory + "/b")
      onB = try RESPConnection(port: b.port)
      #expect(try onB.text("AUTH", "ana@x.org", "secret2") == "OK")
      let laptop = try onB.text("SESSION.OPEN", "ana@x.org", "secret2", "laptop")
      try await Self.synced(from: b.port, to: a.port)
      let onA2 = try RESPConnection(port: a.port)
      #expect(try onA2.object("SESSION.RESUME", laptop)["email"] as? String == "ana@x.org")

      // Deleted on B: A's connections are signed out and the email is free on both.
      #expect(try onB.text("ACCOUNT.DELETE", "secret2") == "OK")
      try await Self.synced(from: b.port, to: a.port)
      #expect(try onA2.text("WHOAMI").hasPrefix("NOAUTH"))
      #expect(try onA.text("WHOAMI").hasPrefix("NOAUTH"))
      let again = try RESPConnection(port: a.port).object("ACCOUNT.CREATE", "ana@x.org", "secret3")
      #expect(again["id"] as? Int != made["id"] as? Int)
      try await Self.synced(from: a.port, to: b.port)
      #expect(try RESPConnection(port: b.port).text("AUTH", "ana@x.org", "secret3") == "OK")
    }
  }

  @Test(
    "the same emails signed up on two nodes at once: one account each, the database's; both nodes sign in the winner's password only, and ids never repeat"
  )
  func racingSignUps() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      // 24 sign-ups from one address: past the default limit, which counts on both nodes.
      let nodes = try (0..<2).map {
        try CardAtlasProcess(
          directory: directory + "/\($0)",
          arguments: ["--store", url, "--signups-per-address", "0"])
      }
      let emails = (0..<12).map { "race\($0)@x.org" }
      let replies = Mutex<[String: [Int: String]]>([:])
      let threads = nodes.map(\.port).enumerated().map { n, port in
        Thread {
          guard let connection = try? RESPConnection(port: port, timeoutSeconds: 60) else { return }
          for email in emails {
            let reply = (try? connection.text("ACCOUNT.CREATE", email, "pass-of-\(n)")) ?? "?"
            replies.withLock { $0[email, default: [:]][n] = reply }
          }
        }
      }
      for thread in threads { thread.start() }
      for _ in 0..<1200 where replies.withLock({ $0.values.map(\.count).reduce(0, +) }) < 24 {
        try await Task.sleep(for: .milliseconds(50))
      }
      try await Self.synced(from: nodes[0].port, to: nodes[1].port)
      try await Self.synced(from: nodes[1].port, to: nodes[0].port)
      let database = TestDatabase(location: try PostgresLocation(url: url))
      let rows = try await database.connect { connection in
        try await connection.query("SELECT email, id FROM accounts", logger: TestDatabase.logger)
          .collect().map { try $0.decode((String, Int64).self) }
      }
      #expect(rows.count == emails.count, "one row per email: \(rows)")
      #expect(Set(rows.map(\.1)).count == rows.count)
      let answered = replies.withLock { $0 }
      for (index, (email, id)) in rows.sorted(by: { $0.0 < $1.0 }).enumerated() {
        // Both sign-ups answered an account (one of them a decoy), never an error; the
        // winner's is the one stored.
        let ids = try (0..<2).map { n in
          let reply = answered[email]?[n] ?? "none"
          return try #require(
            (try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any])?["id"]
              as? Int, "\(email): \(reply)")
        }
        let winner = try #require(ids.firstIndex(of: Int(id)), "\(email): \(ids) against \(id)")
        #expect(ids[1 - winner] != Int(id))
        // The winner's password signs in on both nodes, as the stored id; the loser's is
        // refused (tried for one email: failures slow the next sign-ins).
        for node in nodes {
          let probe = try RESPConnection(port: node.port, timeoutSeconds: 60)
          #expect(try probe.text("AUTH", email, "pass-of-\(winner)") == "OK")
          #expect(try probe.object("WHOAMI")["id"] as? Int == Int(id))
          if index == 0 {
            #expect(try probe.text("AUTH", email, "pass-of-\(1 - winner)").hasPrefix("WRONGPASS"))
          }
        }
      }
      print("racing sign-ups: \(replies.withLock { $0 })")
    }
  }

  @Test(
    "failed sign-ins on one node slow down guesses on another: the throttle counts them on every node"
  )
  func throttleAcrossNodes() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let a = try NodesOverRESPTests.node(url, directory + "/a")
      let b = try NodesOverRESPTests.node(url, directory + "/b")
      _ = try RESPConnection(port: a.port).object("ACCOUNT.CREATE", "ana@x.org", "secret1")
      try await Self.synced(from: a.port, to: b.port)
      // B listens before the guesses: news sent before a node listens are not kept for it.
      try PeopleAcrossNodesTests.newsSynced(from: a.port, to: b.port)
      // Seven wrong guesses on A: past the five free ones, turns are 1 s, then 2 s, then 4 s
      // apart for the address and the pair.
      let guesser = try RESPConnection(port: a.port, timeoutSeconds: 60)
      for _ in 0..<7 {
        #expect(try guesser.text("AUTH", "ana@x.org", "guess").hasPrefix("WRONGPASS"))
      }
      // The reports travel by NOTIFY, not a feed row: a marker published on A after them
      // reaches B after them.
      try PeopleAcrossNodesTests.newsSynced(from: a.port, to: b.port)
      let onB = try RESPConnection(port: b.port, timeoutSeconds: 60)
      let started = ContinuousClock.now
      #expect(try onB.text("AUTH", "ana@x.org", "guess").hasPrefix("WRONGPASS"))
      let waited = ContinuousClock.now - started
      print("a guess on node B after 7 failures on node A took \(waited)")
      #expect(waited >= .seconds(2), "B counted A's failures")
    }
  }

  @Test(
    "one reset token used on two nodes at once resets once: one use answers OK, the other INVALID, and the winner's password is the one that signs in"
  )
  func resetTokenRace() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let a = try NodesOverRESPTests.node(url, directory + "/a")
      let b = try NodesOverRESPTests.node(url, directory + "/b")
      let onA = try RESPConnection(port: a.port, timeoutSeconds: 60)
      var mailed: Set<String> = []
      // Three accounts, three resets each: the limit of resets asked for one email an hour.
      for round in 0..<9 {
        let email = "reset\(round % 3)@x.org"
        if round < 3 { _ = try onA.object("ACCOUNT.CREATE", email, "first-secret") }
        #expect(try onA.text("ACCOUNT.RESET.REQUEST", email) == "OK")
        let token = try await Self.newResetToken(in: directory + "/a/outbox", seen: &mailed)
        try await Self.synced(from: a.port, to: b.port)
        // Both uses sent together, each to its own node.
        let users = try [a, b].map { try RESPConnection(port: $0.port, timeoutSeconds: 60) }
        let replies = Mutex<[String?]>([nil, nil])
        let threads = users.enumerated().map { n, connection in
          Thread {
            let reply = (try? connection.text("ACCOUNT.RESET", token, "secret-of-\(n)")) ?? "?"
            replies.withLock { $0[n] = reply }
          }
        }
        for thread in threads { thread.start() }
        for _ in 0..<1200 where replies.withLock({ $0.contains(nil) }) {
          try await Task.sleep(for: .milliseconds(25))
        }
        let answered = replies.withLock { $0.map { $0 ?? "none" } }
        let winners = answered.indices.filter { answered[$0] == "OK" }
        #expect(winners.count == 1, "round \(round): \(answered)")
        guard winners.count == 1 else { continue }
        let loser = 1 - winners[0]
        #expect(answered[loser].hasPrefix("INVALID"), "round \(round): \(answered)")
        try await Self.synced(from: a.port, to: b.port)
        try await Self.synced(from: b.port, to: a.port)
        for node in [a, b] {
          let probe = try RESPConnection(port: node.port, timeoutSeconds: 60)
          #expect(try probe.text("AUTH", email, "secret-of-\(winners[0])") == "OK")
        }
        // The winner's password stays: the next round's reset starts from it.
      }
    }
  }

  /// The token of the one reset mail in a node's outbox (mails no server took) not in `seen`,
  /// which then holds it.
  static func newResetToken(in outbox: String, seen: inout Set<String>) async throws -> String {
    for _ in 0..<400 {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: outbox)) ?? []
      // Only whole mails: one is written to a temporary name first, then renamed.
      if let name = names.first(where: { $0.hasSuffix(".eml") && !seen.contains($0) }) {
        let mail = try String(
          contentsOfFile: (outbox as NSString).appendingPathComponent(name), encoding: .utf8)
        if let token = mail.split(whereSeparator: \.isNewline)
          .map({ $0.trimmingCharacters(in: .whitespaces) })
          .first(where: { $0.count == 43 && !$0.contains(" ") && !$0.contains(":") })
        {
          seen.insert(name)
          return token
        }
      }
      try await Task.sleep(for: .milliseconds(25))
    }
    throw CancellationError()
  }

  @Test("sign-ups one address makes are counted on every node: the limit holds across nodes")
  func signUpLimitAcrossNodes() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      let limited = ["--store", url, "--signups-per-address", "2"]
      let a = try CardAtlasProcess(directory: directory + "/a", arguments: limited)
      let b = try CardAtlasProcess(directory: directory + "/b", arguments: limited)
      // B listens before the sign-ups: news sent before a node listens are not kept for it.
      try PeopleAcrossNodesTests.newsSynced(from: a.port, to: b.port)
      let onA = try RESPConnection(port: a.port)
      _ = try onA.object("ACCOUNT.CREATE", "one@x.org", "secret1")
      _ = try onA.object("ACCOUNT.CREATE", "two@x.org", "secret1")
      // The counts travel by NOTIFY, in order: a marker published on A after them reaches B
      // after them (a fixed half second was too short beside the parallel suites).
      try PeopleAcrossNodesTests.newsSynced(from: a.port, to: b.port)
      let third = try RESPConnection(port: b.port).text("ACCOUNT.CREATE", "three@x.org", "secret1")
      #expect(third.hasPrefix("LIMIT too many sign-ups from your address"), "\(third)")
    }
  }
}
