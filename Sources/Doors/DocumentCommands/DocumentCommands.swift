import Cards
import Commands
import Dispatch
import Documents
import ErrorLines
import Foundation
import NIOCore
import RESP

/// DOC.*: each reads its arguments, calls `Documents` as the signed-in account, and formats the
/// reply; file reads and writes run off the event loop. The rules are in `Documents`.
public struct DocumentCommands: Sendable {
  let documents: Documents

  public init(documents: Documents) {
    self.documents = documents
  }

  public var all: [CommandSpec] {
    [
      CommandSpec("doc.put", arity: 4, flags: [.needsAccount, .write]) { [documents] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        let args = call.arguments
        let (kind, day, bytes) = (args.string(1), args.string(2), args.bytes(3))
        call.pending = { answer in
          DispatchQueue.global().async {
            documents.put(owner: account, kind: kind, day: day, bytes: bytes) {
              answer($0.reply { Self.bulk(Self.json($0)) })
            }
          }
        }
        return .null
      },
      CommandSpec("doc.list", arity: 1, flags: .needsAccount) { [documents] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        return .array(documents.list(owner: account).map { Self.bulk(Self.json($0)) })
      },
      CommandSpec("doc.get", arity: 2, flags: .needsAccount) { [documents] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        guard let id = call.arguments.integer(1) else {
          return .error(DocumentError.notFound.message)
        }
        call.replyBytes = documents.size(owner: account, id: Int64(id))
        call.pending = { answer in
          DispatchQueue.global().async {
            answer(
              documents.get(owner: account, id: Int64(id)).reply { document, bytes in
                .array([Self.bulk(Self.json(document)), .bulkString(ByteBuffer(bytes: bytes))])
              })
          }
        }
        return .null
      },
      CommandSpec("doc.del", arity: 2, flags: [.needsAccount, .write]) { [documents] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        guard let id = call.arguments.integer(1) else {
          return .error(DocumentError.notFound.message)
        }
        call.pending = { answer in
          documents.delete(owner: account, id: Int64(id)) { answer($0.reply { .integer(1) }) }
        }
        return .null
      },
    ]
  }

  /// What a document's replies show of it (never its file's name).
  static func json(_ d: Document) -> JSONText {
    var object = JSONText()
    object.add("id", d.id)
    object.add("kind", d.kind.rawValue)
    object.add("date", d.day)
    object.add("type", d.type.contentType)
    object.add("size", Int64(d.size))
    object.add("createdAt", d.createdAt.formatted(Date.ISO8601FormatStyle()))
    return object
  }

  static func bulk(_ object: JSONText) -> RESPValue {
    .bulkString(ByteBuffer(string: object.text))
  }
}

extension Result where Failure == DocumentError {
  func reply(_ format: (Success) -> RESPValue) -> RESPValue {
    switch self {
    case .success(let value): format(value)
    case .failure(let error): .error(error.message)
    }
  }
}
