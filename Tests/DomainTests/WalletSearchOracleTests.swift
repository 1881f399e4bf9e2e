import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// WALLET.SEARCH against brute force, through the protocol: random cards (accents, case,
/// repeated words), random wallets and random queries (prefixes, accents and case changed,
/// several words, COUNT), while cards are added, removed, updated, deleted, turned inactive,
/// their owner's account deleted, and the server restarted.
@Suite("Wallet search against brute force")
struct WalletSearchOracleTests {
  /// The searched texts of a card: name, company, job title, email, city, about text.
  typealias Texts = [String?]

  static let names = [
    "José", "Jose", "JOSÉ", "Josefina", "Jose\u{301}phine", "Éloïse", "Eloise", "Zoë", "Ángel",
    "Anna", "Annabel", "Ann", "Müller", "MÜLLER", "François", "Çelik", "Ñuñez", "Straße", "Card1",
    "card12", "Lima", "Li",
  ]
  static let words = [
    "acme", "Acme", "ACME", "acmé", "engineer", "Engineering", "eng", "design", "Designer",
    "école", "ECOLE", "normale", "Lyon", "lyons", "café", "Cafe", "data", "database", "dat", "42",
    "4242", "umbrella", "um", "über", "zürich", "Zurich",
  ]
  static let ascii = ["acme", "data", "lyon", "ecole", "paul", "ana", "dev", "eng", "mail"]

  struct Model {
    var texts: [Int: Texts] = [:]
    var owner: [Int: Int] = [:]
    var primary: Set<Int> = []
    var pro: Set<Int> = []
    var held: [Set<Int>] = [[], []]

    func isActive(_ card: Int) -> Bool {
      primary.contains(card) || pro.contains(owner[card] ?? -1)
    }
  }

  @Test(
    "WALLET.SEARCH is every active held card whose words start with each query word, accents and case ignored, by bm25 over the wallet then newest, COUNT bounded: as brute force finds"
  )
  func againstBruteForce() async throws {
    let server = try await TestDaemon(cards: { $0.proCardLimit = 30 })
    var random = SystemRandomNumberGenerator()
    let admin = try server.connect()
    var owners: [(c: RESPConnection, id: Int)] = []
    var model = Model()
    for i in 0..<4 {
      let (c, id, _) = try server.signedIn("owner\(i)@x.org")
      owners.append((c, id))
      if i < 3 {
        _ = try admin.object("ACCOUNT.PRO", "\(id)", "1")
        model.pro.insert(id)
      }
    }
    var holders = [try server.signedIn("bo@x.org").0, try server.signedIn("cy@x.org").0]
    var codes: [Int: String] = [:]
    for i in 0..<37 {
      let (c, ownerID) = owners[i < 36 ? i % 3 : 3]
      let texts = Self.texts(&random)
      let card = try c.object("CARD.CREATE", Self.json(texts))
      let id = try #require(card["id"] as? Int)
      codes[id] = card["code"] as? String
      model.texts[id] = texts
      model.owner[id] = ownerID
      if card["isPrimary"] as? Bool == true { model.primary.insert(id) }
    }
    func add(_ h: Int, _ id: Int) throws {
      #expect(try holders[h].object("WALLET.ADD", codes[id] ?? "")["id"] as? Int == id)
      model.held[h].insert(id)
    }
    let all = model.texts.keys.sorted()
    for id in all.shuffled(using: &random).prefix(28) { try add(0, id) }
    for id in all.shuffled(using: &random).prefix(18) { try add(1, id) }
    try Self.check(holders, model, &random)

    // Removed and added again (a new place among ties), updated (new words, fields cleared).
    for id in model.held[0].shuffled(using: &random).prefix(6) {
      #expect(try holders[0].text("WALLET.DEL", "\(id)") == "1")
      model.held[0].remove(id)
    }
    for id in all.filter({ !model.held[0].contains($0) }).prefix(4) { try add(0, id) }
    for id in all.shuffled(using: &random).prefix(10) {
      let texts = Self.texts(&random)
      let owner = try #require(owners.first { $0.id == model.owner[id] })
      _ = try owner.c.object("CARD.UPDATE", "\(id)", Self.json(texts, clearing: true))
      model.texts[id] = texts
    }
    try Self.check(holders, model, &random)

    // Deleted cards leave; a Pro account's end turns its other cards inactive (still held).
    for id in all.filter({ !model.primary.contains($0) }).shuffled(using: &random).prefix(4) {
      let owner = try #require(owners.first { $0.id == model.owner[id] })
      #expect(try owner.c.text("CARD.DEL", "\(id)") == "1")
      model.texts[id] = nil
      for h in 0..<2 { model.held[h].remove(id) }
    }
    _ = try admin.object("ACCOUNT.PRO", "\(owners[1].id)", "0")
    model.pro.remove(owners[1].id)
    try Self.check(holders, model, &random)

    // An owner's account goes with its cards; the wallets are rebuilt by a restart.
    #expect(try owners[2].c.text("ACCOUNT.DELETE", "secret1") == "OK")
    for (id, owner) in model.owner where owner == owners[2].id {
      model.texts[id] = nil
      for h in 0..<2 { model.held[h].remove(id) }
    }
    try Self.check(holders, model, &random)
    try await server.restart()
    holders = try ["bo@x.org", "cy@x.org"].map { email in
      let c = try server.connect()
      #expect(try c.text("AUTH", email, "secret1") == "OK")
      return c
    }
    try Self.check(holders, model, &random)
    await server.stop()
  }

  // MARK: The oracle

  /// Compares random queries' replies with brute force over the model, for each holder.
  static func check(
    _ holders: [RESPConnection], _ model: Model, _ random: inout SystemRandomNumberGenerator
  ) throws {
    for (h, c) in holders.enumerated() {
      // The wallet's order (newest first), which breaks ties.
      let order = try WalletTests.ids(c)
      #expect(Set(order) == model.held[h])
      var nonEmpty = 0
      for _ in 0..<80 {
        let query = Self.query(model, order, &random)
        let count = [nil, 1, 3, 10, 100].randomElement(using: &random)!
        let expected = Self.expected(query, model, order, count: count ?? 10)
        let reply = try c.command(
          ["WALLET.SEARCH", query] + (count.map { ["COUNT", "\($0)"] } ?? []))
        let found = WalletTests.objects(reply.value).compactMap { $0["id"] as? Int }
        #expect(found == expected, "\(query) COUNT \(count ?? 10)")
        if !expected.isEmpty { nonEmpty += 1 }
      }
      #expect(nonEmpty > 30, "\(nonEmpty) of 80 queries found something")
    }
  }

  static func expected(_ query: String, _ model: Model, _ order: [Int], count: Int) -> [Int] {
    let words = Self.words(query).prefix(16)
    guard !words.isEmpty else { return [] }
    let weights = [10.0, 5, 5, 3, 2, 1]
    let columns = order.map { id in (model.texts[id] ?? []).map { $0.map(Self.words) ?? [] } }
    let n = Double(order.count)
    let averageLength = Double(columns.reduce(0) { $0 + $1.joined().count }) / n
    let idf = words.map { word in
      let m = Double(columns.filter { $0.joined().contains { $0.hasPrefix(word) } }.count)
      return max(log((n - m + 0.5) / (m + 0.5)), 1e-6)
    }
    var scored: [(score: Double, place: Int, id: Int)] = []
    for (place, id) in order.enumerated() where model.isActive(id) {
      let length = Double(columns[place].joined().count)
      var score = 0.0
      var all = true
      for (q, word) in words.enumerated() {
        var f = 0.0
        for (column, tokens) in columns[place].enumerated() {
          f += weights[column] * Double(tokens.filter { $0.hasPrefix(word) }.count)
        }
        if f == 0 { all = false }
        score += idf[q] * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * length / averageLength))
      }
      if all { scored.append((score, place, id)) }
    }
    scored.sort { ($0.score, -$0.place) > ($1.score, -$1.place) }
    return scored.prefix(min(count, 100)).map(\.id)
  }

  /// Runs of letters and digits, case and accents folded.
  static func words(_ text: String) -> [String] {
    text.split { !($0.isLetter || $0.isNumber) }
      .map { $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
      .filter { !$0.isEmpty }
  }

  // MARK: Random cards and queries

  static func texts(_ random: inout SystemRandomNumberGenerator) -> Texts {
    func some(_ list: [String], _ range: ClosedRange<Int>) -> String {
      (0..<Int.random(in: range, using: &random)).map { _ in list.randomElement(using: &random)! }
        .joined(separator: " ")
    }
    func maybe(_ text: @autoclosure () -> String) -> String? {
      Bool.random(using: &random) ? text() : nil
    }
    let email = maybe(
      "\(Self.ascii.randomElement(using: &random)!).\(Self.ascii.randomElement(using: &random)!)"
        + "@\(Self.ascii.randomElement(using: &random)!).org")
    return [
      some(Self.names, 1...3), maybe(some(Self.words, 1...2)), maybe(some(Self.words, 1...3)),
      email, maybe(some(Self.words, 1...1)), maybe(some(Self.words + Self.names, 1...12)),
    ]
  }

  static func json(_ texts: Texts, clearing: Bool = false) throws -> String {
    var object: [String: Any] = [:]
    let names = texts[0]!.split(separator: " ").map(String.init)
    object["firstName"] = names[0]
    object["lastName"] =
      names.count > 1 ? names[1...].joined(separator: " ") : (clearing ? NSNull() : nil)
    for (column, key) in [(1, "company"), (2, "jobTitle"), (3, "email"), (5, "aboutMe")] {
      object[key] = texts[column] ?? (clearing ? NSNull() : nil)
    }
    object["address"] = texts[4].map { ["city": $0] } ?? (clearing ? NSNull() : nil)
    return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
  }

  /// One to three words: prefixes of one active held card's words (or of any word now and
  /// then), case changed, accents added, separated by spaces or punctuation. Taking the words
  /// of one card keeps most queries matching however few cards the wallet still has active.
  static func query(_ model: Model, _ held: [Int], _ random: inout SystemRandomNumberGenerator)
    -> String
  {
    let accented: [Character: Character] = ["e": "É", "a": "á", "c": "ç", "u": "Ü", "o": "ô"]
    let pool = Array(Self.names + Self.words + ["zzq", "paul@exa", "x"])
    let card = held.filter(model.isActive).randomElement(using: &random)
    let cardWords = card.flatMap { model.texts[$0] }?.compactMap { $0 }.flatMap(Self.words) ?? []
    return (0..<Int.random(in: 1...3, using: &random)).map { _ -> String in
      var source = pool.randomElement(using: &random)!
      if Int.random(in: 0..<4, using: &random) > 0,
        let word = cardWords.randomElement(using: &random)
      {
        source = word
      }
      let prefix = source.prefix(Int.random(in: 1...max(1, source.count), using: &random))
      return prefix.map { ch -> String in
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return ch.uppercased()
        case 1: return String(accented[ch] ?? ch)
        default: return String(ch)
        }
      }.joined()
    }.joined(separator: [" ", "  ", ", ", "-", "."].randomElement(using: &random)!)
  }
}
