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

  @Test(.enabled(if: ProcessInfo.processInfo.environment["WALLET_MEASURE"] != nil))
  func searchLatency() async throws {
    let total = 10_000
    let server = try await AccountServer(cards: { $0.proCardLimit = total })
    let (owner, ownerID, _) = try server.signedIn("owner@x.org")
    let (holder, _, _) = try server.signedIn("holder@x.org")
    _ = try server.connect().object("ACCOUNT.PRO", "\(ownerID)", "1")
    var codes: [String] = []
    for start in stride(from: 0, to: total, by: 500) {
      let batch = (start..<min(total, start + 500)).map { i -> [String] in
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
      }
      try owner.send(batch.flatMap { RESPConnection.frame($0) })
      for _ in batch {
        guard case .bulkString(let b) = try owner.reply().value,
          let card = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
            as? [String: Any], let code = card["code"] as? String
        else { throw RESPConnection.Failed(description: "CARD.CREATE failed") }
        codes.append(code)
      }
    }
    for start in stride(from: 0, to: total, by: 500) {
      let batch = codes[start..<min(total, start + 500)]
      try holder.send(batch.flatMap { RESPConnection.frame(["WALLET.ADD", $0]) })
      for _ in batch {
        guard case .bulkString = try holder.reply().value else {
          throw RESPConnection.Failed(description: "WALLET.ADD failed")
        }
      }
    }
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
    print(
      "WALLET.SEARCH over \(total) held cards, round trip on one connection: median "
        + "\(all[all.count / 2]), p99 \(all[all.count * 99 / 100])\n"
        + lines.joined(separator: "\n"))
    await server.stop()
  }
}
