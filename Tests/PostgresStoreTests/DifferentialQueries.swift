import Foundation
import NIOCore
import RESP
import Testing

extension Workload {
  /// Once quiet: every query of what the workload wrote, on every node against the embedded
  /// node; the map queries also against brute force over the model.
  mutating func compareQueries() async throws {
    for key in Self.keys {
      try await twins.everywhere(nil, ["ZRANGE", key, "0", "-1", "WITHSCORES"])
    }
    for s in 0..<3 { try await twins.everywhere(nil, ["GET", "s\(s)"]) }
    // Which cards are primary (an account's first, or the one it chose) is the store's to say,
    // compared here; a card is on the map while primary or its owner is Pro.
    var primary: Set<String> = []
    for card in cards {
      for caller in [card.owner, (card.owner + 1) % twins.accounts] {
        let reply = try await twins.everywhere(
          caller, ["CARD.GET", card.id.cluster], embedded: ["CARD.GET", card.id.embedded])
        if caller == card.owner, Self.field(reply, "isPrimary") == "1" { primary.insert(card.name) }
      }
    }
    for _ in 0..<16 {
      let p = point()
      let km = Double(100 + next(500))
      let around = [
        "FROMLONLAT", Self.text(p.lon), Self.text(p.lat), "BYRADIUS", "\(Int(km))", "km",
      ]
      for key in Self.keys {
        let reply = try await twins.everywhere(
          nil, ["GEOSEARCH", key] + around + ["ASC", "WITHDIST", "WITHCOORD"])
        check(Self.hitNames(reply, json: nil), (geo[key] ?? [:]).map { ($0.key, $0.value) }, p, km)
      }
      let reader = anyAccount()
      let located = cards.filter {
        $0.alive && (primary.contains($0.name) || pro.contains($0.owner))
      }.compactMap { card in
        card.location.map { (card.name, $0, card.company) }
      }
      let search = ["CARD.SEARCH"] + around + ["COUNT", "1000", "ASC", "WITHDIST"]
      var reply = try await twins.everywhere(reader, search)
      check(Self.hitNames(reply, json: "firstName"), located.map { ($0.0, $0.1) }, p, km)
      let company = Self.companies[next(3)]
      reply = try await twins.everywhere(reader, search + ["FILTER", "company", company])
      check(
        Self.hitNames(reply, json: "firstName"),
        located.filter { $0.2 == company }.map { ($0.0, $0.1) }, p, km)
      reply = try await twins.everywhere(
        reader, ["PIN.SEARCH"] + around + ["COUNT", "1000", "ASC", "WITHDIST"])
      check(
        Self.hitNames(reply, json: "caption"), pins.filter(\.alive).map { ($0.name, $0.at) }, p, km)
    }
    try await twins.everywhere(0, ["CARD.CLUSTERS", "-180", "-85", "180", "85", "3"])
    for a in 0..<twins.accounts {
      try await twins.everywhere(a, ["CARD.MINE"], unordered: true)
      try await twins.everywhere(a, ["WALLET.LIST", "COUNT", "100"], unordered: true)
      try await twins.everywhere(a, ["VENUE.MINE"], unordered: true)
      try await twins.everywhere(a, ["FAVORITE.LIST"], unordered: true)
      try await twins.everywhere(a, ["CHECKIN.LAST"])
      try await twins.everywhere(a, ["CHECKIN.HISTORY"], unordered: true)
      try await twins.everywhere(a, ["EXCHANGE.LIST"], unordered: true)
      try await twins.everywhere(a, ["EXCHANGE.PENDING"], unordered: true)
      // Distances are moved under each store's key: the nodes agree with each other.
      try await twins.everywhere(
        a, ["PEOPLE.NEARBY", "50", "km", "COUNT", "100"], unordered: true,
        storeOwn: ["distance"])
    }
    for pin in pins {
      try await twins.everywhere(
        pin.owner, ["PIN.GET", pin.id.cluster], embedded: ["PIN.GET", pin.id.embedded])
    }
    for a in 0..<twins.accounts {
      try await twins.everywhere(a, ["DOC.LIST"], unordered: true)
      try await twins.everywhere(a, ["NOTIFY.GET"])
      try await twins.everywhere(a, ["DEPENDANT.LIST"], unordered: true)
      try await twins.everywhere(a, ["EXPOSURE.MINE"])
    }
    for document in documents {
      for caller in [document.owner, (document.owner + 1) % twins.accounts] {
        try await twins.everywhere(
          caller, ["DOC.GET", document.id.cluster], embedded: ["DOC.GET", document.id.embedded])
      }
    }
    // Each upload's bytes, or its absence once the card that alone named it was deleted.
    for upload in uploads {
      func path(_ url: String) -> String { URLComponents(string: url)?.path ?? url }
      let status = try await twins.everywhereHTTP(
        (path(upload.id.cluster), path(upload.id.embedded)))
      served[status, default: 0] += 1
    }
    for venue in venues {
      try await twins.everywhere(
        venue.owner, ["VENUE.GET", venue.id.cluster], embedded: ["VENUE.GET", venue.id.embedded])
      try await twins.everywhere(
        venue.owner, ["VENUE.VISITORS", venue.id.cluster],
        embedded: ["VENUE.VISITORS", venue.id.embedded], unordered: true)
    }
  }

  /// The names of a search's hits: GEOSEARCH's members (`json` nil), or a JSON field of each
  /// hit's object.
  static func hitNames(_ reply: RESPValue, json: String?) -> [String] {
    guard case .array(let hits) = reply else { return [] }
    return hits.compactMap { hit -> String? in
      guard case .array(let parts) = hit else { return nil }
      guard let json else {
        if case .bulkString(let b)? = parts.first { return String(buffer: b) }
        return nil
      }
      if case .bulkString(let b)? = parts.last { return field(.bulkString(b), json) }
      return nil
    }
  }

  /// `got` holds every point of `model` within `km` of `centre` and none beyond, but for those
  /// within 10 m of the edge (coordinates are stored at geohash precision).
  mutating func check(
    _ got: [String], _ model: [(String, (lon: Double, lat: Double))],
    _ centre: (lon: Double, lat: Double), _ km: Double
  ) {
    brute += 1
    let radius = km * 1_000
    let distances = model.map { ($0.0, Self.distance(centre, $0.1)) }
    let inside = Set(distances.filter { $0.1 <= radius - 10 }.map(\.0))
    let edge = Set(distances.filter { abs($0.1 - radius) < 10 }.map(\.0))
    let found = Set(got)
    bruteHits += inside.count
    #expect(got.count == found.count, "a hit twice: \(got)")
    #expect(
      inside.isSubset(of: found) && found.isSubset(of: inside.union(edge)),
      "brute force within \(km) km of \(centre): missing \(inside.subtracting(found).sorted()), extra \(found.subtracting(inside.union(edge)).sorted())"
    )
  }

  /// Great-circle distance in metres, as Redis measures it.
  static func distance(_ a: (lon: Double, lat: Double), _ b: (lon: Double, lat: Double)) -> Double {
    let (lat1, lat2) = (a.lat * .pi / 180, b.lat * .pi / 180)
    let u = sin((lat2 - lat1) / 2)
    let v = sin((b.lon - a.lon) * .pi / 180 / 2)
    return 2 * 6_372_797.560856 * asin(min(1, (u * u + cos(lat1) * cos(lat2) * v * v).squareRoot()))
  }
}
