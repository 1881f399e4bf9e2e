import DaemonTestSupport
import Foundation
import RESP
import RedisTestSupport
import Testing

/// CARD.SEARCH against a brute-force filter of what should be visible, after random creates,
/// moves, hides, downgrades, upgrades and deletes.
@Suite("Card map search")
struct CardSearchTests {
  /// What the test knows of a card.
  struct Model {
    var owner: Int
    var primary: Bool
    var shown: Bool
    var location: (Double, Double)?
    var company: String
    var code: String
  }

  static let companies = ["Acme", "Globex", "Initech", "Umbrella"]

  static func distance(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
    let r = 6_371_008.8
    let (lat1, lat2) = (a.1 * .pi / 180, b.1 * .pi / 180)
    let u = sin((lat2 - lat1) / 2)
    let v = sin((b.0 - a.0) * .pi / 180 / 2)
    return 2 * r * asin(min(1, (u * u + cos(lat1) * cos(lat2) * v * v).squareRoot()))
  }

  static func ids(_ reply: RESPValue) -> [Int] {
    guard case .array(let rows) = reply else { return [] }
    return rows.compactMap { row -> Int? in
      guard case .array(let fields) = row, case .integer(let id)? = fields.first else { return nil }
      return id
    }
  }

  @Test(
    "random changes, then searches from random points: exactly the visible cards, in distance order; cursors cover each once"
  )
  func againstBruteForce() async throws {
    let server = try await TestDaemon(cards: { $0.proCardLimit = 10 })
    var generator = SystemRandomNumberGenerator()
    var owners: [(RESPConnection, Int)] = []
    var pro: [Int: Bool] = [:]
    for i in 0..<6 {
      let (c, id, _) = try server.signedIn("user\(i)@x.org")
      owners.append((c, id))
      pro[id] = false
    }
    let admin = try server.connect()
    // Half start Pro, so there are cards enough to find.
    for (_, id) in owners.prefix(3) {
      _ = try admin.object("ACCOUNT.PRO", "\(id)", "1")
      pro[id] = true
    }
    var cards: [Int: Model] = [:]
    func point() -> (Double, Double) {
      (
        Double.random(in: 2.2...2.5, using: &generator),
        Double.random(in: 48.8...48.95, using: &generator)
      )
    }
    for step in 0..<500 {
      let (c, owner) = owners.randomElement(using: &generator)!
      let mine = cards.filter { $0.value.owner == owner }.map(\.key)
      switch Int.random(in: 0..<10, using: &generator) {
      case 0...3:
        let shown = Bool.random(using: &generator)
        let located = Int.random(in: 0..<5, using: &generator) > 0
        let p = point()
        let company = Self.companies.randomElement(using: &generator)!
        let location = located ? #","location":{"lon":\#(p.0),"lat":\#(p.1)}"# : ""
        let reply = try c.command(
          "CARD.CREATE",
          #"{"firstName":"C\#(step)","company":"\#(company)","showOnMap":\#(shown)\#(location)}"#
        ).value
        guard case .bulkString(let b) = reply,
          let object = try JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
            as? [String: Any],
          let id = object["id"] as? Int
        else { continue }  // LIMIT
        cards[id] = Model(
          owner: owner, primary: object["isPrimary"] as? Bool ?? false, shown: shown,
          location: located ? p : nil, company: company, code: object["code"] as? String ?? "")
      case 4...5 where !mine.isEmpty:
        let id = mine.randomElement(using: &generator)!
        let p = point()
        _ = try c.object("CARD.LOCATE", "\(id)", "\(p.0)", "\(p.1)")
        cards[id]?.location = p
      case 6 where !mine.isEmpty:
        let id = mine.randomElement(using: &generator)!
        let shown = Bool.random(using: &generator)
        _ = try c.object("CARD.UPDATE", "\(id)", #"{"showOnMap":\#(shown)}"#)
        cards[id]?.shown = shown
      case 7:
        let flag = !(pro[owner] ?? false)
        _ = try admin.object("ACCOUNT.PRO", "\(owner)", flag ? "1" : "0")
        pro[owner] = flag
      case 8 where !mine.isEmpty:
        let id = mine.randomElement(using: &generator)!
        #expect(try c.text("CARD.DEL", "\(id)") == "1")
        cards[id] = nil
      default: break
      }
    }
    let (viewer, viewerId) = owners[0]
    func visible(_ m: Model) -> Bool {
      m.shown && m.location != nil && (m.primary || pro[m.owner]!)
    }
    // NEW leaves out the viewer's own cards and a third of the others, put in its wallet.
    var seen = Set(cards.filter { $0.value.owner == viewerId }.map(\.key))
    for (id, card) in cards where card.owner != viewerId && id % 3 == 0 {
      if (try? viewer.object("WALLET.ADD", card.code))?["id"] as? Int == id { seen.insert(id) }
    }
    #expect(seen.count >= 3, "enough cards left out to matter")
    for _ in 0..<60 {
      let center = point()
      let radius = Double.random(in: 100...8_000, using: &generator)
      let expected = cards.filter { visible($0.value) }
        .map { ($0.key, Self.distance(center, $0.value.location!)) }
        .filter { $0.1 <= radius }
        .sorted { ($0.1, $0.0) < ($1.1, $1.0) }
      // Points within a micrometre of the edge may fall either way by rounding.
      let doubtful = Set(
        cards.filter { visible($0.value) }.map(\.key).filter {
          abs(Self.distance(center, cards[$0]!.location!) - radius) < 1e-6
        })
      let args = [
        "CARD.SEARCH", "FROMLONLAT", "\(center.0)", "\(center.1)", "BYRADIUS", "\(radius)", "m",
        "ASC",
      ]
      let got = Self.ids(try viewer.command(args).value)
      #expect(
        got.filter { !doubtful.contains($0) } == expected.map(\.0).filter { !doubtful.contains($0) }
      )

      // DESC and COUNT.
      let descending = Self.ids(try viewer.command(args.dropLast() + ["DESC", "COUNT", "3"]).value)
      #expect(descending == Array(got.reversed().prefix(3)))

      // Paging: every hit once, in order.
      func pages(_ args: [String], count: Int) throws -> [Int] {
        var paged: [Int] = []
        var cursor = "0"
        repeat {
          guard
            case .array(let page) = try viewer.command(
              args + ["COUNT", "\(count)", "CURSOR", cursor]
            )
            .value,
            page.count == 2, case .bulkString(let next) = page[0]
          else {
            Issue.record("not a page")
            break
          }
          paged += Self.ids(page[1])
          cursor = String(buffer: next)
        } while cursor != "0"
        return paged
      }
      #expect(try pages(args, count: 4) == got)
      #expect(try pages(args.dropLast() + ["DESC"], count: 4) == got.reversed())

      // FILTER, inside the traversal, equals the brute-force filter.
      let company = Self.companies.randomElement(using: &generator)!
      let filtered = Self.ids(
        try viewer.command(args + ["FILTER", "company", company.uppercased()]).value)
      #expect(filtered == got.filter { cards[$0]?.company == company })

      // NEAREST k: the k first of the whole visible order.
      let all = cards.filter { visible($0.value) }
        .map { ($0.key, Self.distance(center, $0.value.location!)) }
        .sorted { ($0.1, $0.0) < ($1.1, $1.0) }.map(\.0)
      let nearestArgs = ["CARD.SEARCH", "FROMLONLAT", "\(center.0)", "\(center.1)", "NEAREST", "5"]
      let nearest = Self.ids(try viewer.command(nearestArgs).value)
      #expect(nearest == Array(all.prefix(5)))

      // NEW: what is left once the viewer's own and wallet cards are out, COUNT and cursors
      // counting only those.
      let fresh = got.filter { !seen.contains($0) }
      #expect(Self.ids(try viewer.command(args + ["NEW"]).value) == fresh)
      #expect(
        Self.ids(try viewer.command(args + ["NEW", "COUNT", "3"]).value) == Array(fresh.prefix(3)))
      #expect(
        Self.ids(try viewer.command(args.dropLast() + ["DESC", "NEW", "COUNT", "3"]).value)
          == Array(fresh.reversed().prefix(3)))
      #expect(try pages(args + ["NEW"], count: 2) == fresh)
      #expect(
        Self.ids(try viewer.command(args + ["NEW", "FILTER", "company", company]).value)
          == fresh.filter { cards[$0]?.company == company })
      let freshAll = all.filter { !seen.contains($0) }
      #expect(
        Self.ids(try viewer.command(nearestArgs + ["NEW"]).value) == Array(freshAll.prefix(5)))
      #expect(try pages(nearestArgs + ["NEW"], count: 2) == Array(freshAll.prefix(5)))
      #expect(try pages(nearestArgs, count: 2) == Array(all.prefix(5)))
      #expect(
        try pages(nearestArgs + ["NEW", "FILTER", "company", company], count: 2)
          == Array(all.filter { !seen.contains($0) && cards[$0]?.company == company }.prefix(5)))
    }
    // BOUNDS: the visible cards in the box, by id.
    let inBox = cards.filter {
      visible($0.value) && $0.value.location!.0 <= 2.35 && $0.value.location!.1 <= 48.9
    }
    .map(\.key).sorted()
    let bounds = Self.ids(
      try viewer.command(["CARD.SEARCH", "BOUNDS", "2.2", "48.8", "2.35", "48.9"]).value)
    #expect(bounds == inBox)
    // CARD.CLUSTERS: the markers' counts add up to the visible cards in the grid cells that
    // cover the viewport, with and without a filter, and a single marker is one of them.
    for zoom in [3, 10, 12, 14] {
      let size = Double(1 << (zoom + 3))
      func cell(_ p: (Double, Double)) -> (Int, Int) {
        let y = 0.5 - log(tan(.pi / 4 + p.1 * .pi / 360)) / (2 * .pi)
        return (Int(y * size), Int((p.0 / 360 + 0.5) * size))
      }
      let (top, left) = cell((2.2, 48.9))
      let (bottom, right) = cell((2.35, 48.8))
      let covered = cards.filter { id, card in
        guard visible(card) else { return false }
        let (row, column) = cell(card.location!)
        return (top...bottom).contains(row) && (left...right).contains(column)
      }.map(\.key)
      for company in [nil] + Self.companies.map(Optional.some) {
        var args = ["CARD.CLUSTERS", "2.2", "48.8", "2.35", "48.9", "\(zoom)"]
        if let company { args += ["FILTER", "company", company] }
        let reply = try viewer.text(args)
        let collection = try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any]
        let features = collection?["features"] as? [[String: Any]] ?? []
        var total = 0
        for feature in features {
          let properties = feature["properties"] as? [String: Any] ?? [:]
          if properties["cluster"] as? Bool == true {
            total += properties["count"] as? Int ?? 0
            #expect((properties["expansionZoom"] as? Int ?? 0) > zoom)
          } else {
            total += 1
            #expect(covered.contains(properties["id"] as? Int ?? 0))
          }
        }
        let expected = covered.filter { company == nil || cards[$0]?.company == company }.count
        #expect(total == expected, "zoom \(zoom) filter \(company ?? "-")")
      }
    }
    // Nothing hidden, inactive or deleted ever appears.
    let world = Self.ids(
      try viewer.command(["CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "BYRADIUS", "20000", "km"])
        .value)
    #expect(Set(world) == Set(cards.filter { visible($0.value) }.map(\.key)))
    await server.stop()
  }

  @Test("WITHDIST and WITHCOORD, BYBOX, FROMCARD, and the argument errors")
  func replyShapes() async throws {
    let server = try await TestDaemon()
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let (bo, _, _) = try server.signedIn("bo@x.org")
    let a = try ana.object(
      "CARD.CREATE",
      #"{"firstName":"Ana","company":"Acme","showOnMap":true,"location":{"lon":2.35,"lat":48.85}}"#
    )
    _ = try bo.object(
      "CARD.CREATE",
      #"{"firstName":"Bo","showOnMap":true,"location":{"lon":2.36,"lat":48.85}}"#)
    let reply = try bo.command(
      "CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "BYRADIUS", "2", "km", "WITHDIST", "WITHCOORD"
    ).value
    guard case .array(let rows) = reply, rows.count == 2, case .array(let first) = rows[0],
      first.count == 4
    else {
      Issue.record("\(reply)")
      return
    }
    #expect(first[1].textValue == "0.0000")
    if case .array(let coordinates) = first[2] {
      #expect(coordinates.count == 2)
    } else {
      Issue.record("no coordinates")
    }
    #expect(first[3].textValue.contains(#""firstName":"Ana""#))
    if case .array(let second) = rows[1] {
      let metres = Self.distance((2.35, 48.85), (2.36, 48.85))
      #expect(second[1].textValue == String(format: "%.4f", metres / 1000))
    }
    let box = Self.ids(
      try bo.command("CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "BYBOX", "1", "1", "km").value)
    #expect(box == [a["id"] as? Int ?? 0])
    let fromCard = Self.ids(
      try bo.command("CARD.SEARCH", "FROMCARD", "\(a["id"] as? Int ?? 0)", "NEAREST", "1").value)
    #expect(fromCard == [a["id"] as? Int ?? 0])
    for (args, prefix) in [
      (
        ["CARD.SEARCH", "FROMLONLAT", "2", "48", "BYRADIUS", "1", "parsec"], "ERR unsupported unit"
      ),
      (["CARD.SEARCH", "FROMLONLAT", "x", "48", "NEAREST", "1"], "ERR value is not a valid float"),
      (["CARD.SEARCH", "FROMLONLAT", "2", "91", "NEAREST", "1"], "ERR invalid longitude,latitude"),
      (["CARD.SEARCH", "FROMLONLAT", "2", "48"], "ERR exactly one of BYRADIUS"),
      (["CARD.SEARCH", "FROMLONLAT", "2", "48", "NEAREST", "0"], "ERR NEAREST"),
      (["CARD.SEARCH", "FROMLONLAT", "2", "48", "NEAREST", "1", "COUNT", "-1"], "ERR COUNT"),
      (
        ["CARD.SEARCH", "FROMLONLAT", "2", "48", "NEAREST", "1", "CURSOR", "zz"],
        "ERR invalid cursor"
      ),
      (
        ["CARD.SEARCH", "FROMLONLAT", "2", "48", "NEAREST", "1", "FILTER", "age", "3"], "ERR FILTER"
      ),
      (["CARD.SEARCH", "FROMCARD", "999", "NEAREST", "1"], "NOTFOUND"),
      (
        [
          "CARD.SEARCH", "FROMLONLAT", "2", "48", "NEAREST", "9223372036854775807", "COUNT",
          "9223372036854775807",
        ], ""
      ),
    ] {
      #expect(try bo.text(args).hasPrefix(prefix), "\(args)")
    }
    #expect(try bo.text("PING") == "PONG")
    await server.stop()
  }

  @Test("a hit's summary is JSON whatever its text holds: quotes, backslashes, accents")
  func summaryEscapes() async throws {
    let server = try await TestDaemon()
    let (ana, _, _) = try server.signedIn("ana@x.org")
    let company = #"Ça "va" \ ok / 東京"#
    let card = try ana.object(
      "CARD.CREATE",
      #"{"firstName":"Ana","company":"Ça \"va\" \\ ok / 東京","showOnMap":true,"#
        + #""location":{"lon":2.35,"lat":48.85}}"#)
    let reply = try ana.command("CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "NEAREST", "1").value
    guard case .array(let rows) = reply, case .array(let row)? = rows.first,
      case .bulkString(let text)? = row.last,
      let summary = try JSONSerialization.jsonObject(with: Data(String(buffer: text).utf8))
        as? [String: Any]
    else {
      Issue.record("\(reply)")
      await server.stop()
      return
    }
    #expect(summary["company"] as? String == company)
    #expect(summary["id"] as? Int == card["id"] as? Int)
    #expect(summary["firstName"] as? String == "Ana")
    #expect(summary["url"] as? String == card["url"] as? String)
    await server.stop()
  }

  @Test("a hit's summary follows its card: an edit, a new primary card, Pro ending and again")
  func summaryFollowsCard() async throws {
    let server = try await TestDaemon(cards: { $0.proCardLimit = 10 })
    let (ana, anaId, _) = try server.signedIn("ana@x.org")
    let admin = try server.connect()
    _ = try admin.object("ACCOUNT.PRO", "\(anaId)", "1")
    let located = #""showOnMap":true,"location":{"lon":2.35,"lat":48.85}"#
    let first = try ana.object("CARD.CREATE", #"{"firstName":"Ana","company":"Acme",\#(located)}"#)
    let second = try ana.object(
      "CARD.CREATE", #"{"firstName":"Ana","jobTitle":"Chef",\#(located)}"#)
    let (a, b) = (first["id"] as? Int ?? 0, second["id"] as? Int ?? 0)
    /// The summaries the map shows, by card id.
    func summaries() throws -> [Int: [String: Any]] {
      let reply = try ana.command(
        "CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "BYRADIUS", "1", "km"
      ).value
      guard case .array(let rows) = reply else { return [:] }
      var found: [Int: [String: Any]] = [:]
      for case .array(let row) in rows {
        guard case .integer(let id)? = row.first, case .bulkString(let text)? = row.last,
          let summary = try JSONSerialization.jsonObject(with: Data(String(buffer: text).utf8))
            as? [String: Any]
        else { continue }
        found[id] = summary
      }
      return found
    }
    func url(_ id: Int) throws -> String? { try ana.object("CARD.GET", "\(id)")["url"] as? String }
    var shown = try summaries()
    #expect(shown[a]?["company"] as? String == "Acme")
    #expect(shown[b]?["jobTitle"] as? String == "Chef")
    #expect(shown[b]?["url"] as? String == second["url"] as? String)

    _ = try ana.object("CARD.UPDATE", "\(b)", #"{"company":"Globex","address":{"city":"Lyon"}}"#)
    shown = try summaries()
    #expect(shown[b]?["company"] as? String == "Globex")
    #expect(shown[b]?["city"] as? String == "Lyon")

    // The share URLs change with the primary card.
    _ = try ana.object("CARD.PRIMARY", "\(b)")
    shown = try summaries()
    for id in [a, b] { #expect(try shown[id]?["url"] as? String == url(id)) }
    #expect(shown[b]?["url"] as? String == first["url"] as? String)

    // Pro ends: the card no longer primary leaves the map, and comes back with its URL.
    _ = try admin.object("ACCOUNT.PRO", "\(anaId)", "0")
    #expect(try summaries().keys.sorted() == [b])
    _ = try admin.object("ACCOUNT.PRO", "\(anaId)", "1")
    shown = try summaries()
    #expect(shown.keys.sorted() == [a, b].sorted())
    #expect(try shown[a]?["url"] as? String == url(a))
    await server.stop()
  }

  @Test("redis-py: NEW leaves out the caller's own cards and those in its wallet")
  func newWithRedisPy() async throws {
    let server = try await TestDaemon()
    var ids: [String: Int] = [:]
    var codes: [String: String] = [:]
    for (name, lon) in [("ana", 2.350), ("bo", 2.351), ("cy", 2.352), ("di", 2.353)] {
      let (c, _, _) = try server.signedIn("\(name)@x.org")
      let card = try c.object(
        "CARD.CREATE",
        #"{"firstName":"\#(name)","showOnMap":true,"location":{"lon":\#(lon),"lat":48.85}}"#)
      ids[name] = card["id"] as? Int
      codes[name] = card["code"] as? String
    }
    let script = """
      import redis
      r = redis.Redis(port=\(server.port), username="ana@x.org", password="secret1", protocol=3)
      r.execute_command("WALLET.ADD", "\(codes["cy"]!)")
      search = ["CARD.SEARCH", "FROMLONLAT", "2.35", "48.85", "BYRADIUS", "5", "km"]
      print([row[0] for row in r.execute_command(*search)])
      print([row[0] for row in r.execute_command(*search, "NEW")])
      print([row[0] for row in r.execute_command(*search, "NEW", "COUNT", "1")])
      first = r.execute_command(*search, "NEW", "COUNT", "1", "CURSOR", "0")
      rest = r.execute_command(*search, "NEW", "COUNT", "1", "CURSOR", first[0])
      print([row[0] for row in first[1] + rest[1]], rest[0])
      """
    let (output, status) = try RedisProcess.run("python3", ["-c", script])
    #expect(status == 0, "\(output)")
    let (a, b, c, d) = (ids["ana"]!, ids["bo"]!, ids["cy"]!, ids["di"]!)
    #expect(
      output == "[\(a), \(b), \(c), \(d)]\n[\(b), \(d)]\n[\(b)]\n[\(b), \(d)] b'0'\n")
    await server.stop()
  }
}

extension RESPValue {
  var textValue: String {
    switch self {
    case .bulkString(let b): String(buffer: b)
    case .simpleString(let s), .error(let s): s
    default: "\(self)"
    }
  }
}
