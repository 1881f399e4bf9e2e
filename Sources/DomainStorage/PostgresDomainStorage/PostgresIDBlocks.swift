import Durability
import Logging
import PostgresNIO
import PostgresStore
import Synchronization

/// Ids in blocks from a PostgreSQL sequence that counts by `blockSize`: each node gives the ids
/// of the blocks it took, so no two nodes give the same id, and none waits on the database per
/// id. More blocks are fetched once less than one fetch's worth is left (two blocks at first),
/// so that a second of a stalled database does not leave a busy node without ids. A node that
/// ran dry all the same (ids given faster than a fetch came back: a bulk load) fetches twice as
/// many blocks at a time from then on, up to `maximumBatch`. A block a node did not finish (it stopped) is never given
/// again: ids may have gaps, never repeats.
public final class PostgresIDBlocks: IDBlocks {
  private struct State {
    /// The next id to give, and the end of its block (excluded).
    var next: Int64
    var end: Int64
    /// Blocks fetched and not yet begun, by their first id.
    var spares: [Int64] = []
    var fetching = false
    /// Blocks one fetch takes.
    var batch = 2
  }

  public let sequence: String
  public let blockSize: Int64
  private let connector: PostgresConnector
  private let logger: Logger
  private let state: Mutex<State>
  static let maximumBatch = 64

  /// Takes the first block.
  public init(
    sequence: String, blockSize: Int64, connector: PostgresConnector, logger: Logger
  ) async throws {
    self.sequence = sequence
    self.blockSize = blockSize
    self.connector = connector
    self.logger = logger
    let first = try await Self.take(1, of: sequence, connector: connector, logger: logger)[0]
    state = Mutex(State(next: first, end: first + blockSize))
  }

  public func next() -> Int64? {
    let (id, fetch) = state.withLock { s -> (Int64?, Int?) in
      if s.next == s.end, !s.spares.isEmpty {
        let spare = s.spares.removeFirst()
        (s.next, s.end) = (spare, spare + blockSize)
      }
      guard s.next < s.end else {
        s.batch = min(2 * s.batch, Self.maximumBatch)
        return (nil, Self.startFetch(&s))
      }
      defer { s.next += 1 }
      let left = s.end - s.next + Int64(s.spares.count) * blockSize
      return (s.next, left <= Int64(s.batch) * blockSize ? Self.startFetch(&s) : nil)
    }
    if let fetch {
      Task(executorPreference: connector.executor) { await self.fetchSpares(fetch) }
    }
    return id
  }

  /// How many blocks to fetch, unless a fetch is under way.
  private static func startFetch(_ s: inout State) -> Int? {
    guard !s.fetching else { return nil }
    s.fetching = true
    return s.batch
  }

  private func fetchSpares(_ count: Int) async {
    var blocks: [Int64] = []
    do {
      blocks = try await Self.take(count, of: sequence, connector: connector, logger: logger)
    } catch {
      logger.warning(
        "could not take a block of ids", metadata: ["sequence": "\(sequence)", "error": "\(error)"])
    }
    state.withLock { s in
      s.fetching = false
      s.spares += blocks
    }
  }

  /// The first ids of `count` new blocks.
  private static func take(
    _ count: Int, of sequence: String, connector: PostgresConnector, logger: Logger
  ) async throws -> [Int64] {
    let connection = try await connector.primary()
    defer { connection.discard() }
    let rows = try await connection.query(
      "SELECT nextval(\(sequence)::regclass) FROM generate_series(1, \(count))", logger: logger
    ).collect()
    let firsts = try rows.map { try $0.decode(Int64.self) }
    guard firsts.count == count else { throw PostgresIDBlocksError() }
    return firsts
  }
}

struct PostgresIDBlocksError: Error, CustomStringConvertible {
  var description: String { "nextval returned fewer rows than asked" }
}
