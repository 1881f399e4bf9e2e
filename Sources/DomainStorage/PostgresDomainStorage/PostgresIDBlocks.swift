import Durability
import Logging
import PostgresNIO
import PostgresStore
import Synchronization

/// Ids in blocks from a PostgreSQL sequence that counts by `blockSize`: each node gives the ids
/// of the blocks it took, so no two nodes give the same id, and none waits on the database per
/// id. The next block is fetched once half of the current one is given. A block a node did not
/// finish (it stopped) is never given again: ids may have gaps, never repeats.
public final class PostgresIDBlocks: IDBlocks {
  private struct State {
    /// The next id to give, and the end of its block (excluded).
    var next: Int64
    var end: Int64
    var spare: Int64?
    var fetching = false
  }

  public let sequence: String
  public let blockSize: Int64
  private let connector: PostgresConnector
  private let logger: Logger
  private let state: Mutex<State>

  /// Takes the first block.
  public init(
    sequence: String, blockSize: Int64, connector: PostgresConnector, logger: Logger
  ) async throws {
    self.sequence = sequence
    self.blockSize = blockSize
    self.connector = connector
    self.logger = logger
    let first = try await Self.take(sequence, connector: connector, logger: logger)
    state = Mutex(State(next: first, end: first + blockSize))
  }

  public func next() -> Int64? {
    let (id, fetch) = state.withLock { s -> (Int64?, Bool) in
      if s.next == s.end, let spare = s.spare {
        (s.next, s.end, s.spare) = (spare, spare + blockSize, nil)
      }
      guard s.next < s.end else { return (nil, Self.startFetch(&s)) }
      defer { s.next += 1 }
      return (s.next, s.end - s.next <= blockSize / 2 && Self.startFetch(&s))
    }
    if fetch { Task { await fetchSpare() } }
    return id
  }

  private static func startFetch(_ s: inout State) -> Bool {
    guard s.spare == nil, !s.fetching else { return false }
    s.fetching = true
    return true
  }

  private func fetchSpare() async {
    let block: Int64?
    do {
      block = try await Self.take(sequence, connector: connector, logger: logger)
    } catch {
      logger.warning(
        "could not take a block of ids", metadata: ["sequence": "\(sequence)", "error": "\(error)"])
      block = nil
    }
    state.withLock { s in
      s.fetching = false
      s.spare = block
    }
  }

  private static func take(
    _ sequence: String, connector: PostgresConnector, logger: Logger
  ) async throws -> Int64 {
    let connection = try await connector.primary()
    defer { connection.discard() }
    let rows = try await connection.query(
      "SELECT nextval(\(sequence)::regclass)", logger: logger
    ).collect()
    guard let first = try rows.first?.decode(Int64.self) else {
      throw PostgresIDBlocksError()
    }
    return first
  }
}

struct PostgresIDBlocksError: Error, CustomStringConvertible {
  var description: String { "nextval returned no row" }
}
