import Foundation
import NIOCore
import RESP
import RedisTestSupport
import Testing

/// Three nodes on one PostgreSQL given the same random workload as one embedded (SQLite) node:
/// every reply, and every query once quiet, must be the embedded node's, and the map queries
/// brute force's.
@Suite("Three nodes against one embedded node", .serialized)
struct DifferentialNodesTests {
  @Test(
    "a seeded random workload of GEO and string writes, accounts and plans, cards (made, located, changed, made primary, deleted), wallets and their search, pins, votes and the pins at and around a point, venues, new check-in codes, favorites, check-ins and check-outs, dependants, notice settings, presences, people nearby and exchanges, private documents, uploads and cards naming them, the admin's imports, geocoding, spread over three nodes, answers as one embedded node does, command by command and in every query after (the documents' and uploads' bytes too); GEOSEARCH and CARD.SEARCH also as brute force"
  )
  func threeNodesAnswerAsOne() async throws {
    try await NodesOverRESPTests.withDatabase { url, directory in
      // Each with an HTTP port: the uploads' bytes are read where clients read them.
      let http = try (0...3).map { _ in try RedisProcess.freeLoopbackPort() }
      let nodes = try (0..<3).map {
        try CardAtlasProcess(
          directory: directory + "/\($0)",
          arguments: ["--store", url, "--http-port", "\(http[$0])"])
      }
      let embedded = try CardAtlasProcess(
        directory: directory + "/embedded", arguments: ["--http-port", "\(http[3])"])
      let twins = try await Twins(
        nodes: nodes.map(\.port), embedded: embedded.port, http: http, accounts: 6)
      var workload = Workload(twins: twins, seed: 20_261_128)
      for _ in 0..<900 { try await workload.step() }
      try await workload.compareQueries()
      let mismatches = twins.mismatches
      #expect(twins.compared > 1_000, "\(twins.compared) replies compared")
      #expect(workload.bruteHits > 200, "brute force expected \(workload.bruteHits) hits")
      // Uploads served (200), and cards that named one.
      #expect(workload.served[200, default: 0] >= 5, "uploads served: \(workload.served)")
      #expect(workload.named >= 3, "cards naming an upload: \(workload.named)")
      #expect(workload.imported >= 2, "cards imported: \(workload.imported)")
      for (command, least) in [
        ("CHECKIN", 10), ("PEOPLE.NEARBY", 5), ("EXCHANGE.REQUEST", 5), ("DOC.PUT", 10),
        ("DOC.DEL", 3), ("ASSET.PUT", 8), ("CARD.UPDATE", 10), ("NOTIFY.SET", 2),
        ("CARD.PRIMARY", 1), ("DEPENDANT.ADD", 2), ("GEOCODE", 1), ("PIN.AT", 2),
      ] {
        let made = twins.mix[command] ?? (0, 0)
        #expect(made.replies - made.errors >= least, "\(command): \(made)")
      }
      #expect(
        mismatches.isEmpty,
        "\(mismatches.count) replies differ; the first: \(mismatches.prefix(8).joined(separator: "\n"))"
      )
      print(
        "differential: \(twins.compared) replies compared, \(workload.brute) brute-force checks "
          + "(\(workload.bruteHits) hits); uploads by status \(workload.served), "
          + "\(workload.named) named by cards; "
          + "commands (replies, errors): \(twins.mix.sorted { $0.key < $1.key })")
    }
  }
}

/// The accounts' connections on both sides: one per node, and one to the embedded node; and the
/// admin's. Every command goes to one node and to the embedded node, and their replies are
/// compared, less what differs by design (ids, codes, usernames, times).
final class Twins {
  let ports: [UInt16]
  /// The nodes' HTTP ports, then the embedded node's.
  let http: [UInt16]
  /// What each store names differently but the workload knows to be one thing (an upload's
  /// URL), as one name.
  var aliases: [String: String] = [:]
  /// `[account][node]`, and the admin's at index `accounts`.
  private let cluster: [[RESPConnection]]
  private let single: [RESPConnection]
  /// Per node, a connection subscribed to `newsChannel` (`newsSynced`).
  private let listeners: [RESPConnection]
  private static let newsChannel = "twins-news"
  private var lastWriter: Int?
  private(set) var mismatches: [String] = []
  private(set) var compared = 0
  /// Replies per command, and how many of them were errors: the workload's mix.
  private(set) var mix: [String: (replies: Int, errors: Int)] = [:]
  let accounts: Int
  /// Each account's id on the cluster and on the embedded node.
  private(set) var accountIDs: [(cluster: String, embedded: String)] = []

  init(nodes: [UInt16], embedded: UInt16, http: [UInt16], accounts: Int) async throws {
    ports = nodes
    self.http = http
    self.accounts = accounts
    cluster = try (0...accounts).map { _ in try nodes.map { try RESPConnection(port: $0) } }
    single = try (0...accounts).map { _ in try RESPConnection(port: embedded) }
    listeners = try nodes.map { try RESPConnection(port: $0, timeoutSeconds: 1) }
    for listener in listeners {
      #expect(try listener.command("SUBSCRIBE", Self.newsChannel).text.contains(Self.newsChannel))
    }
    for a in 0..<accounts {
      let email = "a\(a)@x.org"
      let made = try await both(nil, node: a % nodes.count, ["ACCOUNT.CREATE", email, "secret1"])
      accountIDs.append((Self.id(made.cluster), Self.id(made.embedded)))
      try await sync(to: nil)
      for n in nodes.indices {
        #expect(try cluster[a][n].text("AUTH", email, "secret1") == "OK")
      }
      #expect(try single[a].text("AUTH", email, "secret1") == "OK")
    }
  }

  /// A JSON reply's `id`, as text ("" when there is none).
  static func id(_ reply: RESPValue) -> String {
    guard case .bulkString(let b) = reply,
      let object = try? JSONSerialization.jsonObject(with: Data(String(buffer: b).utf8))
        as? [String: Any]
    else { return "" }
    return (object["id"] as? Int).map(String.init) ?? ""
  }

  /// Waits until `node` (every node when nil) has applied every write made so far, and heard
  /// every node's news (presences, the counts of limits) sent so far.
  func sync(to node: Int?) async throws {
    guard let writer = lastWriter else { return }
    for n in node.map({ [$0] }) ?? Array(ports.indices) {
      if n != writer {
        try await AccountsAcrossNodesTests.synced(from: ports[writer], to: ports[n])
      }
      try newsSynced(to: n)
    }
  }

  /// Returns once `node` has heard what every other node published so far: one node's
  /// messages travel in order (the feed's sync does not wait for them).
  private func newsSynced(to node: Int) throws {
    for other in ports.indices where other != node {
      let mark = UUID().uuidString
      heard: do {
        // A node listening again after a lost connection misses what was sent meanwhile.
        for _ in 0..<30 {
          _ = try cluster[accounts][other].command("PUBLISH", Self.newsChannel, mark)
          // Earlier marks (other nodes', or this one's before a retry) come first.
          while let message = try? listeners[node].reply() {
            if message.text.contains(mark) { break heard }
          }
        }
        Issue.record("node \(other)'s marker never reached node \(node)")
      }
    }
  }

  /// Runs a command as `account` (the admin when nil) on `node` and on the embedded node, after
  /// `node` has caught up; records a mismatch. Both replies.
  /// `storeOwn`: fields whose values are each store's own (PEOPLE.NEARBY's distances, moved
  /// under the store's key), left out against the embedded node only.
  @discardableResult
  func both(
    _ account: Int?, node: Int, _ arguments: [String], embedded: [String]? = nil,
    unordered: Bool = false, storeOwn: Set<String> = []
  ) async throws -> (cluster: RESPValue, embedded: RESPValue) {
    try await both(
      account, node: node, bytes: arguments.map { Array($0.utf8) },
      embedded: embedded?.map { Array($0.utf8) }, unordered: unordered, storeOwn: storeOwn)
  }

  /// `both` with arguments as bytes (a file's).
  @discardableResult
  func both(
    _ account: Int?, node: Int, bytes arguments: [[UInt8]], embedded: [[UInt8]]? = nil,
    unordered: Bool = false, storeOwn: Set<String> = []
  ) async throws -> (cluster: RESPValue, embedded: RESPValue) {
    try await sync(to: node)
    let a = account ?? accounts
    let onCluster = try cluster[a][node].command(bytes: arguments).value
    let onEmbedded = try single[a].command(bytes: embedded ?? arguments).value
    lastWriter = node
    let errored = if case .error = onEmbedded { 1 } else { 0 }
    let words = arguments.map { String(validating: $0, as: UTF8.self) ?? "<\($0.count) bytes>" }
    mix[words[0], default: (0, 0)].replies += 1
    mix[words[0], default: (0, 0)].errors += errored
    compare(
      onCluster, onEmbedded, "\(words.joined(separator: " ")) on node \(node)", unordered,
      storeOwn)
    return (onCluster, onEmbedded)
  }

  /// Records a mismatch unless the two texts are the same (a part of two replies).
  func expectSame(_ cluster: String, _ embedded: String, _ what: String) {
    compared += 1
    mix[what.split(separator: " ")[0].description, default: (0, 0)].replies += 1
    if cluster != embedded {
      mismatches.append("\(what): \(cluster) against the embedded node's \(embedded)")
    }
  }

  /// Runs a command as `account` on `node` and on the embedded node, as `both` does, without
  /// comparing the replies: what each store makes its own (a venue's check-in code).
  func own(_ account: Int, node: Int, _ arguments: [String], embedded: [String])
    async throws -> (cluster: RESPValue, embedded: RESPValue)
  {
    try await sync(to: node)
    defer { lastWriter = node }
    return (
      try cluster[account][node].command(arguments).value,
      try single[account].command(embedded).value
    )
  }

  /// Asks every node and the embedded node once quiet; compares each node's reply with the
  /// embedded node's. The embedded node's reply.
  /// With `storeOwn`, the nodes must also agree with each other on those fields.
  @discardableResult
  func everywhere(
    _ account: Int?, _ arguments: [String], embedded: [String]? = nil, unordered: Bool = false,
    storeOwn: Set<String> = []
  ) async throws -> RESPValue {
    try await sync(to: nil)
    let a = account ?? accounts
    let expected = try single[a].command(embedded ?? arguments).value
    var first: RESPValue?
    for n in ports.indices {
      let reply = try cluster[a][n].command(arguments).value
      let what = "\(arguments.joined(separator: " ")) on node \(n), once quiet"
      compare(reply, expected, what, unordered, storeOwn)
      guard !storeOwn.isEmpty else { continue }
      if let first {
        compared += 1
        let (here, there) = (
          Self.canonical(reply, unordered: unordered, aliases: aliases),
          Self.canonical(first, unordered: unordered, aliases: aliases)
        )
        if here != there { mismatches.append("\(what): \(here) against node 0's \(there)") }
      } else {
        first = reply
      }
    }
    return expected
  }

  /// Reads a path (each store's own, `paths`) over every node's HTTP port once quiet, and
  /// compares status and bytes with the embedded node's. The embedded node's status.
  @discardableResult
  func everywhereHTTP(_ paths: (cluster: String, embedded: String)) async throws -> Int {
    try await sync(to: nil)
    let expected = await WebAcrossNodesTests.bytes(http[ports.count], paths.embedded)
    if expected == nil {
      mismatches.append("GET \(paths.embedded): the embedded node did not answer")
    }
    for n in ports.indices {
      compared += 1
      let got = await WebAcrossNodesTests.bytes(http[n], paths.cluster)
      if got?.0 != expected?.0 || got?.1 != expected?.1 {
        mismatches.append(
          "GET \(paths.cluster) on node \(n), once quiet: \(got?.0 ?? 0), \(got?.1.count ?? 0) "
            + "bytes against the embedded node's \(expected?.0 ?? 0), \(expected?.1.count ?? 0)")
      }
    }
    return expected?.0 ?? 0
  }

  private func compare(
    _ cluster: RESPValue, _ embedded: RESPValue, _ what: String, _ unordered: Bool,
    _ storeOwn: Set<String> = []
  ) {
    compared += 1
    let (c, e) = (
      Self.canonical(cluster, unordered: unordered, leaving: storeOwn, aliases: aliases),
      Self.canonical(embedded, unordered: unordered, leaving: storeOwn, aliases: aliases)
    )
    if c != e { mismatches.append("\(what): \(c) against the embedded node's \(e)") }
  }

  /// Fields whose values differ between stores by design: ids and what is made from them
  /// (usernames, share codes and URLs), and times.
  static let volatile: Set<String> = [
    "id", "ownerId", "cardId", "venueId", "accountId", "code", "url", "shareUrl", "username",
    "owner", "slug", "createdAt", "updatedAt", "addedAt", "locatedAt", "lastSeenAt", "qrUrl",
    "vcardUrl", "checkedInAt", "checkedOutAt", "expiresAt", "requestedAt", "exchangedAt", "at",
  ]

  /// A reply as comparable text: JSON parsed, less its volatile fields, `aliases`' texts
  /// named alike; a hit's leading id dropped; bytes that are not text as base64. `unordered`:
  /// lists of objects sorted, for replies the server orders by id or by time (ids differ in
  /// order between stores, and two writes may share a millisecond).
  static func canonical(
    _ value: RESPValue, unordered: Bool = false, leaving: Set<String> = [],
    aliases: [String: String] = [:]
  ) -> String {
    var object = plain(value, Fields(volatile: volatile.union(leaving), aliases: aliases))
    if unordered { object = sorted(object) }
    let data = try? JSONSerialization.data(
      withJSONObject: ["v": object], options: [.sortedKeys, .fragmentsAllowed])
    return data.map { String(decoding: $0, as: UTF8.self) } ?? "\(object)"
  }

  /// What `canonical` leaves out or renames.
  private struct Fields {
    let volatile: Set<String>
    let aliases: [String: String]
  }

  private static func plain(_ value: RESPValue, _ fields: Fields) -> Any {
    switch value {
    case .simpleString(let s): return "+" + s
    case .error(let e): return "-" + e
    case .integer(let i): return i
    case .null, .nullArray: return NSNull()
    case .double(let d): return d
    case .formattedDouble(let s): return s
    case .boolean(let b): return b
    case .bulkString(let b):
      let bytes = Array(buffer: b)
      guard let text = String(validating: bytes, as: UTF8.self) else {
        return "bytes:" + Data(bytes).base64EncodedString()
      }
      guard text.first == "{" || text.first == "[",
        let json = try? JSONSerialization.jsonObject(with: Data(text.utf8))
      else { return text }
      return stripped(json, fields)
    case .array(let items), .set(let items):
      var list = items.map { plain($0, fields) }
      // `[id, …, object]` hits: the id is the store's own.
      if list.count >= 2, list.first is Int, list.last is [String: Any] { list.removeFirst() }
      return list
    case .map(let pairs):
      return pairs.map { [plain($0.key, fields), plain($0.value, fields)] }
    default:
      return "\(value)"
    }
  }

  private static func sorted(_ value: Any) -> Any {
    guard let list = value as? [Any] else { return value }
    let items = list.map(sorted)
    guard items.allSatisfy({ $0 is [String: Any] }) else { return items }
    func key(_ item: Any) -> String {
      let data = try? JSONSerialization.data(withJSONObject: item, options: .sortedKeys)
      return data.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
    return items.sorted { key($0) < key($1) }
  }

  private static func stripped(_ json: Any, _ fields: Fields) -> Any {
    if let object = json as? [String: Any] {
      return object.filter { !fields.volatile.contains($0.key) }.mapValues {
        stripped($0, fields)
      }
    }
    if let list = json as? [Any] { return list.map { stripped($0, fields) } }
    if let text = json as? String, let alias = fields.aliases[text] { return alias }
    return json
  }
}
