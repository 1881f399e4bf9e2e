import Foundation
import NIOCore
import RESP
import RedisTestSupport
import Testing

/// A seeded random workload of every command family, sent to `Twins` (a random node and the
/// embedded node), with what it wrote kept as a model for the brute-force checks.
struct Workload {
  /// What two stores name differently: the cluster's name, the embedded node's.
  struct Pair {
    var cluster: String
    var embedded: String
  }

  struct Card {
    let owner: Int
    let name: String
    let id: Pair
    let code: Pair
    var company: String
    var location: (lon: Double, lat: Double)?
    var alive = true
  }

  struct Thing {
    let owner: Int
    let id: Pair
    /// A pin's name (its caption) and centre.
    var name = ""
    var at = (lon: 0.0, lat: 0.0)
    var alive = true
    /// A venue's check-in code.
    var code: Pair? = nil
  }

  /// A private document, or an upload (`kind`: the ASSET.PUT kind; `id`: its URL).
  struct File {
    let owner: Int
    let id: Pair
    let kind: String
    var alive = true
  }

  let twins: Twins
  private var seed: UInt64
  var geo: [String: [String: (lon: Double, lat: Double)]] = [:]
  var cards: [Card] = []
  var pins: [Thing] = []
  var venues: [Thing] = []
  var documents: [File] = []
  var uploads: [File] = []
  /// Cards that came to name an upload; the uploads' HTTP statuses once quiet; cards imported.
  var named = 0
  var imported = 0
  var served: [Int: Int] = [:]
  var pro: Set<Int> = []
  /// Accounts that set a presence (live for the run: the default lifetime is 10 minutes).
  var present: Set<Int> = []
  /// Brute-force comparisons made.
  var brute = 0
  /// Hits brute force expected, over all its checks.
  var bruteHits = 0

  static let keys = ["k0", "k1", "k2"]
  /// What uploads and documents are made of: files each kind takes, and one none takes.
  static let png = try! MediaFixtures.bytes("python.png")
  static let pdf = try! MediaFixtures.bytes("result.pdf")
  static let gif = try! MediaFixtures.bytes("python.gif")
  static let companies = ["Acme", "Globex", "Initech"]
  /// Where points gather: Paris, Tokyo, either side of the antimeridian, near the pole.
  static let centres: [(Double, Double)] = [
    (2.35, 48.85), (139.7, 35.7), (179.8, -16.5),
    (
      -179.9, -16.6
    ), (20, 84),
  ]

  init(twins: Twins, seed: UInt64) {
    self.twins = twins
    self.seed = seed
  }

  mutating func next(_ bound: Int) -> Int {
    seed &+= 0x9E37_79B9_7F4A_7C15
    var z = seed
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int((z ^ (z >> 31)) % UInt64(bound))
  }

  /// A point near one of the centres, within about two degrees, on the map.
  mutating func point() -> (lon: Double, lat: Double) {
    let (lon, lat) = Self.centres[next(Self.centres.count)]
    var x = lon + Double(next(4_000) - 2_000) / 1_000
    if x > 180 { x -= 360 }
    if x < -180 { x += 360 }
    let y = min(85, max(-85, lat + Double(next(4_000) - 2_000) / 1_000))
    return (x, y)
  }

  static func text(_ d: Double) -> String { String(format: "%.6f", d) }

  static func field(_ reply: RESPValue, _ name: String) -> String {
    guard case .bulkString(let b) = reply,
      let object = try? JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
        as? [String: Any]
    else { return "" }
    return object[name].map { "\($0)" } ?? ""
  }

  /// A bulk string's text ("" for anything else).
  static func text(_ reply: RESPValue) -> String {
    if case .bulkString(let b) = reply { return String(buffer: b) }
    return ""
  }

  static func succeeded(_ reply: RESPValue) -> Bool {
    if case .error = reply { return false }
    return true
  }

  mutating func anyAccount() -> Int { next(twins.accounts) }
  private mutating func node() -> Int { next(twins.ports.count) }

  /// One random command.
  mutating func step() async throws {
    let n = node()
    switch next(132) {
    case 0..<14:
      let (key, member, p) = (Self.keys[next(3)], "m\(next(40))", point())
      let reply = try await twins.both(
        nil, node: n, ["GEOADD", key, Self.text(p.lon), Self.text(p.lat), member])
      if Self.succeeded(reply.embedded) { geo[key, default: [:]][member] = p }
    case 14..<19:
      let (key, member) = (Self.keys[next(3)], "m\(next(40))")
      try await twins.both(nil, node: n, ["ZREM", key, member])
      geo[key]?[member] = nil
    case 19:
      let key = Self.keys[next(3)]
      try await twins.both(nil, node: n, ["DEL", key])
      geo[key] = nil
    case 20..<23:
      try await twins.both(nil, node: n, ["SET", "s\(next(3))", "v\(next(1000))"])
    case 23..<33: try await createCard(on: n)
    case 33..<41:
      guard let c = pick(cards.indices.filter { cards[$0].alive }) else { return }
      let p = point()
      let id = cards[c].id
      let reply = try await twins.both(
        cards[c].owner, node: n, ["CARD.LOCATE", id.cluster, Self.text(p.lon), Self.text(p.lat)],
        embedded: ["CARD.LOCATE", id.embedded, Self.text(p.lon), Self.text(p.lat)])
      if Self.succeeded(reply.embedded) { cards[c].location = p }
    case 41..<45:
      guard let c = pick(cards.indices.filter { cards[$0].alive }) else { return }
      // Sometimes not the owner: refused alike, and nothing changes.
      let caller = next(4) == 0 ? anyAccount() : cards[c].owner
      let company = Self.companies[next(3)]
      let patch = #"{"company":"\#(company)","jobTitle":"t\#(next(5))"}"#
      let reply = try await twins.both(
        caller, node: n, ["CARD.UPDATE", cards[c].id.cluster, patch],
        embedded: ["CARD.UPDATE", cards[c].id.embedded, patch])
      if Self.succeeded(reply.embedded) { cards[c].company = company }
    case 45..<48:
      guard let c = pick(cards.indices.filter { cards[$0].alive }) else { return }
      let caller = next(4) == 0 ? anyAccount() : cards[c].owner
      let reply = try await twins.both(
        caller, node: n, ["CARD.DEL", cards[c].id.cluster],
        embedded: ["CARD.DEL", cards[c].id.embedded])
      if Self.succeeded(reply.embedded) { cards[c].alive = false }
    case 48..<55:
      guard let c = pick(Array(cards.indices)) else { return }
      try await twins.both(
        anyAccount(), node: n, ["WALLET.ADD", cards[c].code.cluster],
        embedded: ["WALLET.ADD", cards[c].code.embedded])
    case 55..<57:
      guard let c = pick(Array(cards.indices)) else { return }
      try await twins.both(
        anyAccount(), node: n, ["WALLET.DEL", cards[c].id.cluster],
        embedded: ["WALLET.DEL", cards[c].id.embedded])
    case 57..<64:
      let (p, radius) = (point(), 50 + next(2_000))
      let name = "p\(pins.count)"
      let caption = #"{"caption":"\#(name)"}"#
      let owner = anyAccount()
      let reply = try await twins.both(
        owner, node: n, ["PIN.ADD", Self.text(p.lon), Self.text(p.lat), "\(radius)", "m", caption])
      if Self.succeeded(reply.embedded) {
        let id = Pair(cluster: Twins.id(reply.cluster), embedded: Twins.id(reply.embedded))
        pins.append(Thing(owner: owner, id: id, name: name, at: p))
      }
    case 64..<69:
      guard let p = pick(Array(pins.indices)) else { return }
      let vote = ["UP", "DOWN", "NONE"][next(3)]
      try await twins.both(
        anyAccount(), node: n, ["PIN.VOTE", pins[p].id.cluster, vote],
        embedded: ["PIN.VOTE", pins[p].id.embedded, vote])
    case 69..<71:
      guard let p = pick(pins.indices.filter { pins[$0].alive }) else { return }
      let caller = next(4) == 0 ? anyAccount() : pins[p].owner
      let reply = try await twins.both(
        caller, node: n, ["PIN.DEL", pins[p].id.cluster],
        embedded: ["PIN.DEL", pins[p].id.embedded])
      if Self.succeeded(reply.embedded) { pins[p].alive = false }
    case 71..<76:
      let p = point()
      let owner = anyAccount()
      let json =
        #"{"name":"v\#(venues.count)","lon":\#(Self.text(p.lon)),"lat":\#(Self.text(p.lat))}"#
      let reply = try await twins.both(owner, node: n, ["VENUE.CREATE", json])
      if Self.succeeded(reply.embedded) {
        let id = Pair(cluster: Twins.id(reply.cluster), embedded: Twins.id(reply.embedded))
        let code = try await twins.own(
          owner, node: n, ["VENUE.CODE", id.cluster], embedded: ["VENUE.CODE", id.embedded])
        venues.append(
          Thing(
            owner: owner, id: id,
            code: Pair(cluster: Self.text(code.cluster), embedded: Self.text(code.embedded))))
      }
    case 76..<80:
      guard let v = pick(Array(venues.indices)) else { return }
      let command = next(3) == 0 ? "FAVORITE.DEL" : "FAVORITE.ADD"
      try await twins.both(
        anyAccount(), node: n, [command, venues[v].id.cluster],
        embedded: [command, venues[v].id.embedded])
    case 80..<83:
      let a = anyAccount()
      let flag = pro.contains(a) ? "0" : "1"
      let ids = twins.accountIDs[a]
      let reply = try await twins.both(
        nil, node: n, ["ACCOUNT.PRO", ids.cluster, flag],
        embedded: ["ACCOUNT.PRO", ids.embedded, flag])
      if Self.succeeded(reply.embedded) {
        if flag == "1" { pro.insert(a) } else { pro.remove(a) }
      }
    case 83..<88:
      // A check-in (an account open elsewhere is checked out there), or one by a code that
      // was never given.
      guard let v = pick(Array(venues.indices)), let code = venues[v].code else { return }
      let known = next(8) != 0
      try await twins.both(
        anyAccount(), node: n, ["CHECKIN", known ? code.cluster : "nosuchcode"],
        embedded: ["CHECKIN", known ? code.embedded : "nosuchcode"])
    case 88..<90:
      try await twins.both(anyAccount(), node: n, ["CHECKOUT"])
    case 90..<94:
      // People nearby: a presence within 10 km of the Louvre (people meet where the others
      // are), and a search from it.
      let a = anyAccount()
      let lon = 2.33 + Double(next(200) - 100) / 1_000
      let lat = 48.86 + Double(next(200) - 100) / 1_000
      try await twins.both(a, node: n, ["PRESENCE.SET", Self.text(lon), Self.text(lat)])
      present.insert(a)
      try await twins.both(
        a, node: node(), ["PEOPLE.NEARBY", "50", "km", "COUNT", "100"], unordered: true,
        storeOwn: ["distance"])
    case 94..<97:
      // A request between two people present (refused alike when one has no primary card).
      guard let from = pick(Array(present)), let to = pick(present.filter { $0 != from })
      else { return }
      let ids = twins.accountIDs[to]
      try await twins.both(
        from, node: n, ["EXCHANGE.REQUEST", ids.cluster],
        embedded: ["EXCHANGE.REQUEST", ids.embedded])
    case 100..<112: try await fileStep(on: n, next(12))
    case 112..<132: try await settingsStep(on: n, next(11))
    default:
      // Reads mid-way, on the node that took the last write or another.
      if let c = pick(Array(cards.indices)) {
        try await twins.both(
          anyAccount(), node: n, ["CARD.GET", cards[c].id.cluster],
          embedded: ["CARD.GET", cards[c].id.embedded])
      }
      if let p = pick(Array(pins.indices)) {
        try await twins.both(
          anyAccount(), node: n, ["PIN.GET", pins[p].id.cluster],
          embedded: ["PIN.GET", pins[p].id.embedded])
      }
    }
  }

  /// Documents and uploads: stored (now and then a file their kind refuses), read, deleted
  /// (sometimes by another account), and named on cards (sometimes another account's upload).
  private mutating func fileStep(on n: Int, _ choice: Int) async throws {
    switch choice {
    case 0..<4:
      let owner = anyAccount()
      let kind = ["VACCINATION", "TEST-POSITIVE", "TEST-NEGATIVE", "BOGUS"][next(4)]
      let day = String(format: "2026-%02d-%02d", 1 + next(11), 1 + next(28))
      // A PNG of its own bytes (one document never reads as another's), a PDF, or a GIF.
      let bytes = [TestPhoto.png(Array("document \(documents.count)".utf8)), Self.pdf, Self.gif][
        next(3)]
      let reply = try await twins.both(
        owner, node: n, bytes: [Array("DOC.PUT".utf8), Array(kind.utf8), Array(day.utf8), bytes])
      if Self.succeeded(reply.embedded) {
        documents.append(
          File(
            owner: owner,
            id: Pair(cluster: Twins.id(reply.cluster), embedded: Twins.id(reply.embedded)),
            kind: kind))
      }
    case 4..<6:
      guard let d = pick(documents.indices.filter { documents[$0].alive }) else { return }
      let caller = next(4) == 0 ? anyAccount() : documents[d].owner
      let reply = try await twins.both(
        caller, node: n, ["DOC.DEL", documents[d].id.cluster],
        embedded: ["DOC.DEL", documents[d].id.embedded])
      if Self.succeeded(reply.embedded) { documents[d].alive = false }
    case 6:
      guard let d = pick(Array(documents.indices)) else { return }
      let caller = next(3) == 0 ? anyAccount() : documents[d].owner
      try await twins.both(
        caller, node: n, ["DOC.GET", documents[d].id.cluster],
        embedded: ["DOC.GET", documents[d].id.embedded])
    case 7..<10:
      let owner = anyAccount()
      let kind = ["IMAGE", "LOGO", "CV"][next(3)]
      // Mostly a file the kind takes; now and then a GIF, which none takes.
      let bytes = next(4) == 0 ? Self.gif : kind == "CV" ? Self.pdf : Self.png
      let reply = try await twins.both(
        owner, node: n, bytes: [Array("ASSET.PUT".utf8), Array(kind.utf8), bytes])
      guard Self.succeeded(reply.embedded) else { return }
      let url = Pair(
        cluster: Self.field(reply.cluster, "url"), embedded: Self.field(reply.embedded, "url"))
      let name = "upload \(uploads.count)"
      twins.aliases[url.cluster] = name
      twins.aliases[url.embedded] = name
      uploads.append(File(owner: owner, id: url, kind: kind))
    default:
      // A card names an upload: mostly one of its owner's, of a kind the field may take or not.
      let anyOwner = next(4) == 0
      guard let c = pick(cards.indices.filter { cards[$0].alive }),
        let u = pick(uploads.indices.filter { anyOwner || uploads[$0].owner == cards[c].owner })
      else { return }
      let field = uploads[u].kind == "CV" ? "cvUrl" : ["imageUrl", "logoUrl"][next(2)]
      let patch = { (url: String) in #"{"\#(field)":"\#(url)"}"# }
      let reply = try await twins.both(
        cards[c].owner, node: n,
        ["CARD.UPDATE", cards[c].id.cluster, patch(uploads[u].id.cluster)],
        embedded: ["CARD.UPDATE", cards[c].id.embedded, patch(uploads[u].id.embedded)])
      if Self.succeeded(reply.embedded) { named += 1 }
    }
  }

  /// Notice settings, primary cards, dependants, a venue's new code, and reads of the wallet,
  /// the pins around a point and the gazetteer.
  private mutating func settingsStep(on n: Int, _ choice: Int) async throws {
    switch choice {
    case 0:
      let event = ["views", "walletAdds"][next(2)]
      try await twins.both(anyAccount(), node: n, ["NOTIFY.SET", event, "\(next(2))"])
    case 1:
      guard let c = pick(cards.indices.filter { cards[$0].alive }) else { return }
      let caller = next(4) == 0 ? anyAccount() : cards[c].owner
      try await twins.both(
        caller, node: n, ["CARD.PRIMARY", cards[c].id.cluster],
        embedded: ["CARD.PRIMARY", cards[c].id.embedded])
    case 2:
      try await twins.both(
        anyAccount(), node: n, ["WALLET.SEARCH", "c\(next(10))", "COUNT", "100"], unordered: true)
    case 3:
      let p = point()
      try await twins.both(
        anyAccount(), node: n, ["PIN.AT", Self.text(p.lon), Self.text(p.lat)], unordered: true)
    case 4:
      let p = point()
      try await twins.both(
        anyAccount(), node: n,
        ["PIN.TOP", Self.text(p.lon), Self.text(p.lat), "300", "km", "COUNT", "1000"],
        unordered: true)
    case 5:
      try await twins.both(anyAccount(), node: n, ["DEPENDANT.ADD", "d\(next(100))"])
    case 6:
      let place = ["Paris, France", "Tokyo", "Lima, Peru", "Suva, Fiji", "Nowhere at all"][next(5)]
      try await twins.both(anyAccount(), node: n, ["GEOCODE", place, "COUNT", "3"])
    case 7:
      let p = point()
      try await twins.both(
        anyAccount(), node: n, ["GEOCODE.REVERSE", Self.text(p.lon), Self.text(p.lat)])
    case 8:
      try await importCard(on: n)
    default:
      // A new check-in code: each store's own, so kept, not compared; another's refused alike.
      guard let v = pick(Array(venues.indices)) else { return }
      let owner = venues[v].owner
      let caller = next(4) == 0 ? anyAccount() : owner
      guard caller == owner else {
        try await twins.both(
          caller, node: n, ["VENUE.ROTATE", venues[v].id.cluster],
          embedded: ["VENUE.ROTATE", venues[v].id.embedded])
        return
      }
      let code = try await twins.own(
        owner, node: n, ["VENUE.ROTATE", venues[v].id.cluster],
        embedded: ["VENUE.ROTATE", venues[v].id.embedded])
      guard Self.succeeded(code.embedded), Self.succeeded(code.cluster) else { return }
      venues[v].code = Pair(cluster: Self.text(code.cluster), embedded: Self.text(code.embedded))
    }
  }

  /// The admin's CARD.IMPORT: a known account's card by external id (made, changed or left as
  /// it is), now and then an invited owner's. The reply's outcome is compared; its id is each
  /// store's own, and an imported card joins the others.
  private mutating func importCard(on n: Int) async throws {
    let invited = next(8) == 0
    let owner = anyAccount()
    let email = invited ? "invited\(next(3))@x.org" : "a\(owner)@x.org"
    let name = "c\(cards.count)"
    let company = Self.companies[next(3)]
    let p = point()
    let json =
      #"{"firstName":"\#(name)","company":"\#(company)","showOnMap":true,"#
      + #""location":{"lon":\#(Self.text(p.lon)),"lat":\#(Self.text(p.lat))}}"#
    let command = ["CARD.IMPORT", email, "x\(next(4))", json]
    let reply = try await twins.own(twins.accounts, node: n, command, embedded: command)
    func parts(_ value: RESPValue) -> (String, String) {
      guard case .array(let items) = value, items.count == 2 else { return ("\(value)", "") }
      if case .integer(let id) = items[1] { return (Self.text(items[0]), "\(id)") }
      return (Self.text(items[0]), "")
    }
    let (cluster, embedded) = (parts(reply.cluster), parts(reply.embedded))
    twins.expectSame(cluster.0, embedded.0, "CARD.IMPORT \(email) on node \(n)")
    guard !invited, cluster.0 == "created", embedded.0 == "created" else { return }
    imported += 1
    cards.append(
      Card(
        owner: owner, name: name, id: Pair(cluster: cluster.1, embedded: embedded.1),
        code: Pair(cluster: "", embedded: ""), company: company, location: p))
  }

  private mutating func pick(_ indices: [Int]) -> Int? {
    indices.isEmpty ? nil : indices[next(indices.count)]
  }

  private mutating func createCard(on n: Int) async throws {
    let owner = anyAccount()
    let name = "c\(cards.count)"
    let company = Self.companies[next(3)]
    let json = #"{"firstName":"\#(name)","company":"\#(company)","showOnMap":true}"#
    let reply = try await twins.both(owner, node: n, ["CARD.CREATE", json])
    guard Self.succeeded(reply.embedded), Self.succeeded(reply.cluster) else { return }
    cards.append(
      Card(
        owner: owner, name: name,
        id: Pair(cluster: Twins.id(reply.cluster), embedded: Twins.id(reply.embedded)),
        code: Pair(
          cluster: Self.field(reply.cluster, "code"), embedded: Self.field(reply.embedded, "code")),
        company: company))
  }
}
