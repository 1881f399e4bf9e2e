import Datasets
import Dispatch
import Foundation
import NIOCore
import RESP
import RESPClient

/// Cards prepared for the `cards` workload (or pins for `pins`): how many, and how fast
/// `CARD.CREATE` (`PIN.ADD`) made them.
public struct CardLoad: Sendable, Equatable, Codable {
  public var cards: Int
  public var accounts: Int
  /// The CARD.CREATE phase alone (the accounts are made before it).
  public var seconds: Double
  /// The command that made them: CARD.CREATE or PIN.ADD.
  public var command: String

  public var perSecond: Double { seconds > 0 ? Double(cards) / seconds : 0 }
}

/// Prepares the cards the `cards` workload searches, through the protocol as an app would:
/// accounts (`ACCOUNT.CREATE`), made Pro by the admin (`ACCOUNT.PRO`, from a connection that
/// signed in as no account: the server must run without `--requirepass`), then each account,
/// from a connection of its own, `CARD.CREATE`s a card at each of its share of the points,
/// pipelined. An account holds `perAccount` cards, so the server must allow that many
/// (`cardatlas serve --pro-card-limit`). Accounts of an earlier run are deleted first, with
/// their cards. The sessions' tokens are kept for the search connections (`SESSION.RESUME`).
/// For the `pins` workload the records are photo pins (`PIN.ADD`, radii from `PinRadii`).
struct CardLoader {
  static let password = "bench-password"
  static let companies = [
    "Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Tyrell",
  ]
  static let titles = ["Engineer", "Designer", "Lawyer", "Doctor", "Architect", "Consultant"]

  let points: PointSet
  let perAccount: Int
  let seed: UInt64
  /// Accounts prepared at once, each on its own connection.
  let parallel: Int
  /// Card creations in flight per connection.
  let window: Int
  /// Pins rather than cards.
  let pins: Bool
  let log: @Sendable (String) -> Void

  private var command: String { pins ? "PIN.ADD" : "CARD.CREATE" }
  private var noun: String { pins ? "pins" : "cards" }

  var accountCount: Int { (points.count + perAccount - 1) / perAccount }

  static func email(seed: UInt64, _ account: Int, prefix: String = "bench") -> String {
    "\(prefix)\(seed)-\(account)@cardatlas.invalid"
  }

  /// The card of point `i`: a first name, a company and a title to filter on, on the map.
  func json(_ i: Int) -> String {
    let company = Self.companies[i % Self.companies.count]
    let title = Self.titles[i % Self.titles.count]
    return #"{"firstName":"Card\#(i)","company":"\#(company)","jobTitle":"\#(title)","#
      + #""showOnMap":true,"location":{"lon":\#(CommandEncoding.number(points.longitudes[i])),"#
      + #""lat":\#(CommandEncoding.number(points.latitudes[i]))}}"#
  }

  /// The request that makes point `i`'s record, given the radii of the pins.
  func request(_ i: Int, _ radii: [Double]) -> [String] {
    guard pins else { return ["CARD.CREATE", json(i)] }
    return [
      "PIN.ADD", CommandEncoding.number(points.longitudes[i]),
      CommandEncoding.number(points.latitudes[i]), CommandEncoding.number(radii[i]), "m",
      #"{"caption":"Pin \#(i)"}"#,
    ]
  }

  /// Makes the accounts and their cards; returns the figures and a session token per account.
  func load(into server: ServerAddress, group: any EventLoopGroup) async throws -> (
    CardLoad, tokens: [String]
  ) {
    let accounts = accountCount
    log("creating \(grouped(accounts)) Pro accounts on \(server)")
    let tokens = try await inParallel(accounts) { account in
      try await makeAccount(account, on: server, group: group)
    }
    log("creating \(grouped(points.count)) \(noun) (\(grouped(perAccount)) per account)")
    let radii = pins ? PinRadii.draw(count: points.count, seed: seed) : []
    let started = DispatchTime.now().uptimeNanoseconds
    _ = try await inParallel(accounts) { account in
      try await makeCards(account, token: tokens[account], radii: radii, on: server, group: group)
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    let load = CardLoad(
      cards: points.count, accounts: accounts, seconds: seconds, command: command)
    log(
      "  \(grouped(points.count)) \(noun) in \(formatted(seconds, decimals: 2)) s: "
        + "\(grouped(Int(load.perSecond.rounded()))) \(command)/s")
    return (load, tokens)
  }

  /// `count` accounts without cards (the `presence` workload's), fresh as `load`'s are; a
  /// session token for each.
  func sessions(_ count: Int, on server: ServerAddress, group: any EventLoopGroup) async throws
    -> [String]
  {
    log("creating \(grouped(count)) accounts on \(server)")
    return try await inParallel(count) { account in
      try await makeAccount(account, prefix: "presence", on: server, group: group)
    }
  }

  /// `body` for each of `0..<count`, `parallel` at a time; the results in order.
  private func inParallel<T: Sendable>(
    _ count: Int, _ body: @escaping @Sendable (Int) async throws -> T
  ) async throws -> [T] {
    try await withThrowingTaskGroup(of: [(Int, T)].self) { tasks in
      for lane in 0..<min(parallel, count) {
        tasks.addTask {
          var done: [(Int, T)] = []
          for i in stride(from: lane, to: count, by: parallel) {
            done.append((i, try await body(i)))
          }
          return done
        }
      }
      var results = [T?](repeating: nil, count: count)
      for try await done in tasks { for (i, value) in done { results[i] = value } }
      return results.map { $0! }
    }
  }

  /// A fresh Pro account (an earlier run's is deleted first); returns its session's token.
  private func makeAccount(
    _ account: Int, prefix: String = "bench", on server: ServerAddress, group: any EventLoopGroup
  ) async throws -> String {
    let email = Self.email(seed: seed, account, prefix: prefix)
    return try await withClient(server, group) { client in
      let (id, token) = try await client.freshAccount(email: email, password: Self.password)
      // Signed out again: ACCOUNT.PRO is the admin's (anyone's, with no --requirepass).
      _ = try await expect(client.send("RESET"), server, "RESET")
      _ = try await expect(client.send("ACCOUNT.PRO", String(id), "1"), server, "ACCOUNT.PRO")
      return token
    }
  }

  /// `body` with a fresh connection, closed after it.
  private func withClient<T>(
    _ server: ServerAddress, _ group: any EventLoopGroup, _ body: (RESPClient) async throws -> T
  ) async throws -> T {
    let client = try await RESPClient.connect(to: server, group: group)
    do {
      let result = try await body(client)
      await client.close()
      return result
    } catch {
      await client.close()
      throw error
    }
  }

  /// The account's cards: points `account * perAccount ..<` the next account's, `window` at a
  /// time in flight.
  private func makeCards(
    _ account: Int, token: String, radii: [Double], on server: ServerAddress,
    group: any EventLoopGroup
  ) async throws {
    try await withClient(server, group) { client in
      _ = try await expect(client.send("SESSION.RESUME", token), server, "SESSION.RESUME")
      let range = account * perAccount..<min(points.count, (account + 1) * perAccount)
      var inFlight: [EventLoopFuture<[RESPValue]>] = []
      var next = range.lowerBound
      // Two batches in flight, each half the window, so the server always has the next at hand.
      let batch = max(1, window / 2)
      while next < range.upperBound || !inFlight.isEmpty {
        if next < range.upperBound, inFlight.count < 2 {
          let end = min(range.upperBound, next + batch)
          let commands = (next..<end).map { request($0, radii) }
          inFlight.append(client.submit(CommandEncoding.encode(commands), count: commands.count))
          next = end
          continue
        }
        for reply in try await inFlight.removeFirst().get() {
          _ = try expect(reply, server, command)
        }
      }
    }
  }

  /// The reply's text; an error reply fails the setup.
  private func expect(_ reply: RESPValue, _ server: ServerAddress, _ what: String) throws -> String
  {
    switch reply {
    case .bulkString(let b): return String(buffer: b)
    case .simpleString(let s): return s
    case .integer(let i): return String(i)
    case .error(let e): throw setupFailed(server, "\(what) failed: \(e)")
    default: throw setupFailed(server, "\(what) answered \(reply)")
    }
  }

  private func setupFailed(_ server: ServerAddress, _ reason: String) -> LoadGenError {
    .setupFailed(server: "\(server)", reason: reason)
  }
}
