import Keyspace
import NIOCore
import RESP

/// The keyspace commands, and plain strings (SET, GET) so that WRONGTYPE means what it means.
enum KeyCommands {
  static let all: [CommandSpec] = [
    CommandSpec("del", arity: -2, flags: .write, run: del),
    CommandSpec("exists", arity: -2, run: exists),
    CommandSpec("type", arity: 2, run: type),
    CommandSpec("keys", arity: 2, run: keys),
    CommandSpec("scan", arity: -2, run: scan),
    CommandSpec("dbsize", arity: 1) { call in .integer(call.read { $0.count }) },
    CommandSpec("select", arity: 2, run: select),
    CommandSpec("flushdb", arity: -1, flags: .write) { call in flush(&call, all: false) },
    CommandSpec("flushall", arity: -1, flags: .write) { call in flush(&call, all: true) },
    CommandSpec("set", arity: -3, flags: .write, run: set),
    CommandSpec("get", arity: 2, run: get),
  ]

  static func del(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    let db = call.db
    return .integer(
      call.write { writer in
        (1..<args.count).reduce(0) { n, i in n + (writer.delete(db: db, key: args.bytes(i)) ? 1 : 0)
        }
      })
  }

  static func exists(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    return .integer(call.read { db in (1..<args.count).count { db[args.bytes($0)] != nil } })
  }

  static func type(_ call: inout Invocation) -> RESPValue {
    let key = call.arguments.bytes(1)
    return .simpleString(call.read { $0[key]?.typeName ?? "none" })
  }

  static func keys(_ call: inout Invocation) -> RESPValue {
    let pattern = call.arguments.bytes(1)
    let all = pattern == [UInt8(ascii: "*")]
    return .array(
      call.read { db in
        db.keys.filter { all || globMatches(pattern, $0) }
          .map { .bulkString(ByteBuffer(bytes: $0)) }
      })
  }

  /// SCAN cursor [MATCH pattern] [COUNT n] [TYPE type]. The cursor is a position in the keys'
  /// byte order, so a full iteration returns every key present throughout it exactly once.
  static func scan(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    guard let cursor = args.cursor(1) else { return .error("ERR invalid cursor") }
    var pattern: Bytes?
    var count = 10
    var typeName: String?
    var i = 2
    while i < args.count {
      let left = args.count - i - 1
      if args.is(i, "count") && left >= 1 {
        guard let n = args.saturatingInteger(i + 1) else { return .error(RedisError.notInteger) }
        guard n >= 1 else { return .error(RedisError.syntax) }
        count = n
      } else if args.is(i, "match") && left >= 1 {
        // Like Redis, `*` alone is no pattern: it takes the empty key too.
        let match = args.bytes(i + 1)
        pattern = match == [UInt8(ascii: "*")] ? nil : match
      } else if args.is(i, "type") && left >= 1 {
        typeName = args.string(i + 1)
      } else {
        return .error(RedisError.syntax)
      }
      i += 2
    }
    let (next, found) = call.read { db -> (UInt64, [Bytes]) in
      let sorted = db.keys.sorted { $0.lexicographicallyPrecedes($1) }
      let start = Int(min(cursor, UInt64(sorted.count)))
      let end = min(sorted.count, start + count)
      let page = sorted[start..<end].filter { key in
        (pattern.map { globMatches($0, key) } ?? true)
          && (typeName.map { db[key]?.typeName.caseInsensitiveEquals($0) ?? false } ?? true)
      }
      return (end >= sorted.count ? 0 : UInt64(end), Array(page))
    }
    return .array([
      .bulkString(ByteBuffer(string: String(next))),
      .array(found.map { .bulkString(ByteBuffer(bytes: $0)) }),
    ])
  }

  static func select(_ call: inout Invocation) -> RESPValue {
    let db: Int
    switch call.arguments.integer(1, in: Int(Int32.min)...Int(Int32.max)) {
    case .failure(let error): return .error(error.message)
    case .success(let index): db = index
    }
    guard (0..<Keyspace.databaseCount).contains(db) else {
      return .error(RedisError.dbIndexOutOfRange)
    }
    call.session.db = db
    call.environment.sessionChanged(call.session)
    return .simpleString("OK")
  }

  static func flush(_ call: inout Invocation, all: Bool) -> RESPValue {
    let args = call.arguments
    if args.count > 2 || (args.count == 2 && !args.is(1, "async") && !args.is(1, "sync")) {
      return .error(RedisError.syntax)
    }
    let db = call.db
    call.write { writer in
      if all { writer.flushAll() } else { writer.flush(db: db) }
    }
    return .simpleString("OK")
  }

  /// SET key value [NX|XX] [GET] [KEEPTTL]. Keys never expire here, so EX, PX, EXAT and PXAT
  /// are refused rather than ignored.
  static func set(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    var nx = false
    var xx = false
    var get = false
    for i in 3..<args.count {
      if args.is(i, "nx") && !xx {
        nx = true
      } else if args.is(i, "xx") && !nx {
        xx = true
      } else if args.is(i, "get") {
        get = true
      } else if args.is(i, "keepttl") {
        continue
      } else if args.is(i, "ex") || args.is(i, "px") || args.is(i, "exat") || args.is(i, "pxat") {
        return .error("ERR key expiry is not supported by CardAtlas")
      } else {
        return .error(RedisError.syntax)
      }
    }
    let key = args.bytes(1)
    let value = args.bytes(2)
    let db = call.db
    return call.write { writer -> RESPValue in
      let old = writer.database(db)[key]
      var previous = RESPValue.null
      if get {
        switch old {
        case .sortedSet: return .error(RedisError.wrongType)
        case .string(let bytes): previous = .bulkString(ByteBuffer(bytes: bytes))
        case nil: break
        }
      }
      if (nx && old != nil) || (xx && old == nil) { return get ? previous : .null }
      writer.setString(db: db, key: key, value: value)
      return get ? previous : .simpleString("OK")
    }
  }

  static func get(_ call: inout Invocation) -> RESPValue {
    let key = call.arguments.bytes(1)
    return call.read { db in
      switch db[key] {
      case nil: return .null
      case .string(let bytes): return .bulkString(ByteBuffer(bytes: bytes))
      case .sortedSet: return .error(RedisError.wrongType)
      }
    }
  }
}

extension String {
  func caseInsensitiveEquals(_ other: String) -> Bool { lowercased() == other.lowercased() }
}
