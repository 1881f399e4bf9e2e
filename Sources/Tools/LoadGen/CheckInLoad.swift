import Datasets
import Foundation
import NIOCore
import RESP
import RESPClient

/// Prepares the `checkin` workload through the protocol, as the apps would: an owner account
/// (`ACCOUNT.CREATE`) makes `venues` venues around real cities (`VENUE.CREATE`, pipelined) and
/// reads their codes (`VENUE.CODE`); one visitor account per connection signs in
/// (`SESSION.OPEN`; its token is the connection's preamble). Accounts of an earlier run are
/// deleted first, with their venues and visits. The requests are `CHECKIN <code> <lon> <lat>` at
/// random venues (seeded), from where each venue is.
struct VenueLoader {
  static let password = "bench-password"

  let venues: Int
  let visitors: Int
  let seed: UInt64
  let poolSize: Int
  let log: @Sendable (String) -> Void

  static func email(seed: UInt64, _ who: String) -> String {
    "bench\(seed)-\(who)@cardatlas.invalid"
  }

  /// The visitors' session tokens and the check-in requests.
  func load(into server: ServerAddress, group: any EventLoopGroup) async throws -> (
    tokens: [String], requests: [[String]]
  ) {
    let points = PointSet.realistic(
      count: venues, seed: seed, generator: try DatasetGenerator())
    log("creating \(grouped(venues)) venues and \(visitors) visitor accounts on \(server)")
    let client = try await RESPClient.connect(to: server, group: group)
    defer { Task { await client.close() } }
    _ = try await signUp(client, Self.email(seed: seed, "owner"), server)
    var codes: [String] = []
    for start in stride(from: 0, to: venues, by: 500) {
      let range = start..<min(venues, start + 500)
      let created = try await client.send(
        range.map { i in
          [
            "VENUE.CREATE",
            #"{"name":"Venue \#(i)","lon":\#(CommandEncoding.number(points.longitudes[i])),"#
              + #""lat":\#(CommandEncoding.number(points.latitudes[i]))}"#,
          ]
        })
      let ids = try created.map { reply -> String in
        let text = try expect(reply, server, "VENUE.CREATE")
        guard
          let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
          let id = object["id"] as? Int
        else { throw setupFailed(server, "VENUE.CREATE answered \(text)") }
        return String(id)
      }
      codes += try await client.send(ids.map { ["VENUE.CODE", $0] }).map {
        try expect($0, server, "VENUE.CODE")
      }
    }
    var tokens: [String] = []
    for visitor in 0..<visitors {
      let other = try await RESPClient.connect(to: server, group: group)
      tokens.append(try await signUp(other, Self.email(seed: seed, "visitor\(visitor)"), server))
      await other.close()
    }
    var rng = SeededGenerator(seed: seed, stream: 0x4348_4543_4B49_4E)  // "CHECKIN"
    let requests = (0..<max(poolSize, 2)).map { _ -> [String] in
      let i = rng.nextInt(below: venues)
      return [
        "CHECKIN", codes[i], CommandEncoding.number(points.longitudes[i]),
        CommandEncoding.number(points.latitudes[i]),
      ]
    }
    return (tokens, requests)
  }

  /// A fresh account signed in on `client` (an earlier run's is deleted first); its token.
  private func signUp(_ client: RESPClient, _ email: String, _ server: ServerAddress)
    async throws -> String
  {
    try await client.freshAccount(email: email, password: Self.password).token
  }

  private func expect(_ reply: RESPValue, _ server: ServerAddress, _ what: String) throws -> String
  {
    switch reply {
    case .bulkString(let b): return String(buffer: b)
    case .simpleString(let s): return s
    case .error(let e): throw setupFailed(server, "\(what) failed: \(e)")
    default: throw setupFailed(server, "\(what) answered \(reply)")
    }
  }

  private func setupFailed(_ server: ServerAddress, _ reason: String) -> LoadGenError {
    .setupFailed(server: "\(server)", reason: reason)
  }
}
