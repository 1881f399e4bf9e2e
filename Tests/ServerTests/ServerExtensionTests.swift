import Commands
import Foundation
import GRDB
import Logging
import NIOCore
import RESP
import RedisTestSupport
import Server
import Store
import Synchronization
import Testing

/// A domain module brings its tables, its state and its commands to the server; its writes go
/// through the same group commit as GEOADD, and are answered once durable.
@Suite("Server extensions")
struct ServerExtensionTests {
  /// A tiny domain: notes in a table of their own, held in memory as a domain holds its
  /// records: changed at once, so later reads see them, and answered once durable.
  final class Notes: Sendable {
    let store: Store
    let texts: Mutex<Set<String>>

    init(store: Store) throws {
      self.store = store
      let stored = try store.read { db in try String.fetchAll(db, sql: "SELECT text FROM notes") }
      texts = Mutex(Set(stored))
    }

    struct Insert: SQLiteWrite {
      let text: String
      func apply(to db: GRDB.Database) throws {
        try db.execute(sql: "INSERT INTO notes (text) VALUES (?)", arguments: [text])
      }
    }

    static let migrations = [
      StoreMigration(
        "notes-v1", sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)")
    ]

    var commands: [CommandSpec] {
      [
        CommandSpec("note.add", arity: 2, flags: .write) { call in
          let text = call.arguments.string(1)
          guard let count = self.add(text) else { return .error("ERR duplicate note") }
          let store = self.store
          call.pending = { answer in
            store.commit([Insert(text: text)]) { result in
              answer((try? result.get()) == nil ? .error("ERR not persisted") : .integer(count))
            }
          }
          return .null
        },
        CommandSpec("note.count", arity: 1) { _ in .integer(self.texts.withLock { $0.count }) },
      ]
    }

    /// The number of notes once `text` is added; nil if it is there already.
    private func add(_ text: String) -> Int? {
      texts.withLock { texts in texts.insert(text).inserted ? texts.count : nil }
    }

    static let `extension` = ServerExtension(name: "notes", migrations: migrations) { store in
      ServerExtension.Parts(commands: try Notes(store: store).commands)
    }
  }

  @Test("an extension's commands run in order with GEOADD, are listed, and survive a restart")
  func extensionCommands() async throws {
    let server = try await TestServer(extensions: [Notes.extension])
    let c = try RESPConnection(port: server.port)
    let commands = [
      ["NOTE.ADD", "a"], ["GEOADD", "g", "1", "1", "m"], ["NOTE.ADD", "b"], ["NOTE.ADD", "a"],
      ["NOTE.COUNT"],
    ]
    try c.send(commands.flatMap(RESPConnection.frame))
    let replies = try commands.map { _ in try c.reply().text }
    #expect(replies == [":1\r\n", ":1\r\n", ":2\r\n", "-ERR duplicate note\r\n", ":2\r\n"])
    let listed = try c.command("COMMAND", "LIST").value
    guard case .array(let names) = listed else {
      Issue.record("COMMAND LIST answered \(listed)")
      return
    }
    let strings = names.compactMap { name -> String? in
      if case .bulkString(let b) = name { return String(buffer: b) }
      return nil
    }
    #expect(strings.contains("note.add") && strings.contains("geosearch"))
    #expect(try c.command("COMMAND", "COUNT").text == ":\(strings.count)\r\n")

    // The notes are in the store: a new server over the same directory loads them.
    let directory = server.directory
    await server.server.stop()
    var configuration = server.server.configuration
    configuration.port = 0
    configuration.dataDirectory = directory
    var logger = Logger(label: "cardatlas-test")
    logger.logLevel = .warning
    let again = try CardAtlasServer(
      configuration: configuration, extensions: [Notes.extension], logger: logger)
    let port = try await again.start()
    let d = try RESPConnection(port: UInt16(port))
    #expect(try d.command("NOTE.COUNT").text == ":2\r\n")
    await again.stop()
    try? FileManager.default.removeItem(atPath: directory)
  }
}
