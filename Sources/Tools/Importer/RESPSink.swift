import Cards
import Foundation
import RESP
import RESPClient
import Synchronization

/// Writes to a running daemon as its admin: each chunk's CARD.IMPORT commands pipelined on one
/// connection, their replies read in order. A chunk is written as soon as the one before is
/// written and at most `window` chunks are unanswered: the daemon has the next chunks in hand
/// while it answers one (waiting for each chunk's answers before sending the next left it idle
/// between chunks: 11,300 rows/s, now 13,500). Reading never waits for a later write, so the
/// replies are always taken and neither side blocks the other.
public final class RESPSink: CardSink {
  private let connection: RESPConnection
  /// One writer and one reader at a time, each direction on its own.
  private let writing = Mutex(())
  private let reading = Mutex(())
  private let chain = Mutex(Chain())
  private static let window = 4

  /// The last chunk's write and the last `window` chunks' reads, which the next ones wait for.
  private struct Chain {
    var write: Task<Void, any Error>?
    var reads: [Task<[Result<ImportOutcome, RowFailure>], any Error>] = []
  }

  /// The server has no admin password, so the one given was not needed (Redis answers AUTH
  /// so; every client is its admin).
  public let passwordNotNeeded: Bool

  /// Connects to `host:port`, signs in with the admin password (`--requirepass`), if any, and
  /// makes sure this connection may run CARD.IMPORT before any row is read: every failure is
  /// `ImportError.server`, saying which step failed and what the server answered.
  public init(server: String, password: String?) throws {
    let connection: RESPConnection
    do { connection = try RESPConnection(server) } catch {
      throw ImportError.server("\(error)")
    }
    connection.keepsRawReplies = false
    var passwordNotNeeded = false
    do {
      if let password, case .error(let message) = try connection.command("AUTH", password).value {
        guard message.contains("without any password configured") else {
          throw ImportError.server("\(server) refused the password: \(message)")
        }
        passwordNotNeeded = true
      }
      // A CARD.IMPORT of the right arity gets past the arity check: refused as INVALID (and
      // nothing written) for the admin, NOAUTH or NOPERM for anyone else.
      switch try connection.command("CARD.IMPORT", "", "", "").value {
      case .error(let message) where message.hasPrefix("INVALID"): break
      case .error(let message) where message.hasPrefix("NOAUTH") || message.hasPrefix("NOPERM"):
        throw ImportError.server(
          password == nil
            ? "\(server) needs its admin password (--password or CARDATLAS_PASSWORD): \(message)"
            : "the password does not make this import \(server)'s admin: \(message)")
      case .error(let message):
        throw ImportError.server(
          "\(server) does not take CARD.IMPORT (is it a CardAtlas daemon?): \(message)")
      default:
        throw ImportError.server("\(server) answered CARD.IMPORT unexpectedly")
      }
    } catch let error as ImportError {
      connection.disconnect()
      throw error
    } catch {
      connection.disconnect()
      throw ImportError.server("\(server): \(error)")
    }
    self.connection = connection
    self.passwordNotNeeded = passwordNotNeeded
  }

  public func send(_ requests: [CardWriteRequest]) -> Task<
    [Result<ImportOutcome, RowFailure>], any Error
  > {
    let commands = requests.map { ["CARD.IMPORT", $0.ownerEmail, $0.externalId, $0.json] }
    let connection = self.connection
    return chain.withLock { chain in
      let (previousWrite, lastRead) = (chain.write, chain.reads.last)
      let answered = chain.reads.count == Self.window ? chain.reads.first : nil
      let write = Task {
        _ = await previousWrite?.result
        _ = await answered?.result
        try writing.withLock { _ in
          do { try connection.send(commands: commands) } catch {
            throw ImportError.server("connection lost while writing: \(error)")
          }
        }
      }
      let read = Task {
        try await write.value
        _ = await lastRead?.result
        return try reading.withLock { _ in
          try commands.map { _ in
            do { return try Self.outcome(connection.reply().value) } catch let error
              as ImportError
            {
              throw error
            } catch {
              throw ImportError.server("connection lost while reading: \(error)")
            }
          }
        }
      }
      chain.write = write
      chain.reads = (chain.reads + [read]).suffix(Self.window)
      return read
    }
  }

  private static func outcome(_ reply: RESPValue) throws -> Result<ImportOutcome, RowFailure> {
    switch reply {
    case .error(let message): return .failure(RowFailure(message: message))
    case .array(let items):
      let name: String? =
        switch items.first {
        case .simpleString(let text): text
        case .bulkString(let bytes): String(buffer: bytes)
        default: nil
        }
      guard let name, let outcome = ImportOutcome(rawValue: name) else {
        throw ImportError.server("unexpected reply to CARD.IMPORT")
      }
      return .success(outcome)
    default: throw ImportError.server("unexpected reply to CARD.IMPORT")
    }
  }

  public func close() { connection.disconnect() }
}
