import Foundation
import RESP
import RedisTestSupport
import Testing

/// A measurement, not a test: WALLET.SEARCH's round trip over a 10,000-card wallet, printed.
/// Runs only with `WALLET_MEASURE=1` (`swift test --filter WalletSearchMeasurement`).
@Suite("WalletSearchMeasurement")
struct WalletSearchMeasurement {
  static let firstNames = [
    "José", "Marie", "Jean", "Ana", "Élodie", "François", "Lucía", "Søren", "Zoë", "Mohamed",
    "Wei", "Olga", "Pierre", "Camille", "Jürgen", "Inès", "Paul", "Sofía", "Nils", "Chloé",
  ]
  static let lastNames = [
    "Dupont", "Martin", "García", "Lima", "Müller", "Nguyen", "Rossi", "Dubois", "Silva",
    "Kowalski", "Bernard", "Lefèvre", "Moreau", "Santos", "Novak", "Petit", "Roux", "Fournier",
  ]
  static let companies = [
    "Acme", "Globex", "Initech", "Umbrella", "École normale", "Hôtel du Lac", "Stark", "Wayne",
    "Soylent", "Cyberdyne", "Tyrell", "Aperture",
  ]
  static let cities = [
    "Lyon", "Paris", "Málaga", "Zürich", "Montréal", "Lisboa", "Kraków", "Genève",
  ]
  static let titles = ["Engineer", "Designer", "Chef", "Teacher", "Architect", "Nurse", "Lawyer"]
  static let queries = [
    "jos", "mar", "dup", "lyo", "eng", "acm", "ma du", "fran", "ecole", "MÜLL", "zur", "chef par",
    "a", "so", "hotel lac", "xyz",
  ]

  static func signIn(_ server: AccountServer, _ email: String) throws -> RESPConnection {
    let c = try RESPConnection(port: server.port, timeoutSeconds: 300)
    guard try c.text("AUTH", email, "secret1") == "OK" else {
      throw RESPConnection.Failed(description: "cannot sign in \(email)")
    }
    return c
  }

  /// Sends the commands in rounds of 10 per connection, all connections at once; the replies
  /// in the commands' order.
  static func pipelined(_ connections: [RESPConnection], _ commands: [[String]]) throws
    -> [RESPValue]
  {
    var replies: [RESPValue] = []
    let round = 10 * connections.count
    for start in stride(from: 0, to: commands.count, by: round) {
      let chunk = Array(commands[start..<min(commands.count, start + round)])
      let shares = stride(from: 0, to: chunk.count, by: 10).map {
        Array(chunk[$0..<min(chunk.count, $0 + 10)])
      }
      for (c, share) in zip(connections, shares) { try c.send(share.flatMap(RESPConnection.frame)) }
      for (c, share) in zip(connections, shares) {
        for _ in share { replies.append(try c.reply().value) }
      }
    }
    return replies
  }

  @Test(.enabled(if: ProcessInfo.processInfo.environment["WALLET_MEASURE"] != nil))
  func searchLatency() async throws {
    let total = 10_000
    let server = try await AccountServer(cards: { $0.proCardLimit = total })
    let (owner, ownerID, _) = try server.signedIn("owner@x.org")
    let (holder, _, _) = try server.signedIn("holder@x.org")
    _ = try server.connect().object("ACCOUNT.PRO", "\(ownerID)", "1")
    // Many connections at once, so that the group commit makes each round of writes durable
    // together (one connection's writes are answered one after another).
    let owners = try (0..<32).map { _ in try Self.signIn(server, "owner@x.org") }
    let holders = try (0..<32).map { _ in try Self.signIn(server, "holder@x.org") }
    let cards = try Self.pipelined(
      owners,
      (0..<total).map { i -> [String] in
        let fields: [String: Any] = [
          "firstName": Self.firstNames[i % Self.firstNames.count],
          "lastName": Self.lastNames[(i / 3) % Self.lastNames.count],
          "company": Self.companies[(i / 7) % Self.companies.count],
          "jobTitle": Self.titles[(i / 11) % Self.titles.count],
          "address": ["city": Self.cities[(i / 13) % Self.cities.count]],
          "aboutMe": "Card number \(i), met at conference \(i % 97)",
        ]
        let json = try! JSONSerialization.data(withJSONObject: fields)
        return ["CARD.CREATE", String(decoding: json, as: UTF8.self)]
      })
    let codes = try cards.map { reply -> String in
      guard case .bulkString(let b) = reply,
        let card = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
          as? [String: Any], let code = card["code"] as? String
      else { throw RESPConnection.Failed(description: "CARD.CREATE failed: \(reply)") }
      return code
    }
    for reply in try Self.pipelined(holders, codes.map { ["WALLET.ADD", $0] }) {
      guard case .bulkString = reply else {
        throw RESPConnection.Failed(description: "WALLET.ADD failed: \(reply)")
      }
    }
    _ = owner
    let clock = ContinuousClock()
    var all: [Duration] = []
    var lines: [String] = []
    for query in Self.queries {
      var times: [Duration] = []
      var found = 0
      for _ in 0..<200 {
        let start = clock.now
        found = try holder.command("WALLET.SEARCH", query).value.arrayCount
        times.append(clock.now - start)
      }
      times.sort()
      all += times
      lines.append("  \(query): median \(times[times.count / 2]), \(found) results")
    }
    all.sort()
    // What the replies' JSON costs, apart from the search: the same 10 cards listed, and one.
    for (name, command) in [
      ("WALLET.LIST COUNT 10", ["WALLET.LIST", "COUNT", "10"]),
      ("WALLET.SEARCH jos COUNT 1", ["WALLET.SEARCH", "jos", "COUNT", "1"]),
    ] {
      var times: [Duration] = []
      for _ in 0..<200 {
        let start = clock.now
        _ = try holder.command(command)
        times.append(clock.now - start)
      }
      times.sort()
      lines.append("  \(name): median \(times[times.count / 2])")
    }
    print(
      "WALLET.SEARCH over \(total) held cards, round trip on one connection: median "
        + "\(all[all.count / 2]), p99 \(all[all.count * 99 / 100])\n"
        + lines.joined(separator: "\n"))
    await server.stop()
  }
}
