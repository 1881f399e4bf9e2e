import Keyspace
import NIOCore
import RESP

/// The sorted-set view Redis gives of GEO keys: ZRANGE, ZREM, ZCARD, ZSCORE.
enum SortedSetCommands {
  static let all: [CommandSpec] = [
    CommandSpec("zrange", arity: -4, run: zrange),
    CommandSpec("zrem", arity: -3, flags: .write, run: zrem),
    CommandSpec("zcard", arity: 2, run: zcard),
    CommandSpec("zscore", arity: 3, run: zscore),
  ]

  /// `addReplyDouble`.
  static func score(_ value: Double) -> RESPValue { .double(value) }

  static func zcard(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    return call.read { db in
      switch GeoCommands.sortedSet(db, args, 1) {
      case .failure(let error): return .error(error.message)
      case .success(let set): return .integer(set?.count ?? 0)
      }
    }
  }

  static func zscore(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    let member = args.bytes(2)
    return call.read { db in
      switch GeoCommands.sortedSet(db, args, 1) {
      case .failure(let error): return .error(error.message)
      case .success(let set):
        guard let value = set?.score(of: member) else { return .null }
        return score(value)
      }
    }
  }

  static func zrem(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    let key = args.bytes(1)
    let db = call.db
    return call.write { writer in
      switch GeoCommands.sortedSet(writer.database(db), key) {
      case .failure(let error): return .error(error.message)
      case .success(nil): return .integer(0)
      case .success(let set?):
        var removed = 0
        for i in 2..<args.count where set.count > 0 {
          if writer.remove(db: db, key: key, set: set, member: args.bytes(i)) { removed += 1 }
        }
        return .integer(removed)
      }
    }
  }

  /// ZRANGE key start stop [BYSCORE|BYLEX] [REV] [LIMIT offset count] [WITHSCORES], as
  /// `zrangeGenericCommand` reads it. BYLEX is refused: GEO sets are ordered by score.
  static func zrange(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    var withScores = false
    var offset = 0
    var limit = -1
    var reverse = false
    var byScore = false
    var byLex = false
    var i = 4
    while i < args.count {
      let left = args.count - i - 1
      if args.is(i, "withscores") {
        withScores = true
      } else if args.is(i, "limit") && left >= 2 {
        guard let o = args.saturatingInteger(i + 1), let l = args.saturatingInteger(i + 2) else {
          return .error(RedisError.notInteger)
        }
        offset = o
        limit = l
        i += 2
      } else if !reverse && args.is(i, "rev") {
        reverse = true
      } else if !byScore && !byLex && args.is(i, "bylex") {
        byLex = true
      } else if !byScore && !byLex && args.is(i, "byscore") {
        byScore = true
      } else {
        return .error(RedisError.syntax)
      }
      i += 1
    }
    if limit != -1 && !byScore && !byLex {
      return .error(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
    }
    if withScores && byLex {
      return .error("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
    }
    if byLex { return .error("ERR BYLEX is not supported: CardAtlas orders sets by score only") }
    let (minIndex, maxIndex) = reverse && byScore ? (3, 2) : (2, 3)
    var range: ScoreRange?
    var ranks: (Int, Int)?
    if byScore {
      guard let low = scoreBound(args, minIndex), let high = scoreBound(args, maxIndex) else {
        return .error("ERR min or max is not a float")
      }
      range = ScoreRange(min: low.0, minExclusive: low.1, max: high.0, maxExclusive: high.1)
    } else {
      guard let start = args.saturatingInteger(minIndex),
        let stop = args.saturatingInteger(maxIndex)
      else {
        return .error(RedisError.notInteger)
      }
      ranks = (start, stop)
    }
    let resp3 = call.resp3
    return call.read { db -> RESPValue in
      let set: SortedSet
      switch GeoCommands.sortedSet(db, args, 1) {
      case .failure(let error): return .error(error.message)
      case .success(nil): return .array([])
      case .success(let found?): set = found
      }
      let entries: [(member: Bytes, score: Double)]
      if let range {
        guard offset >= 0 else { return .array([]) }
        entries = set.entries(
          scores: range, reverse: reverse, offset: offset, limit: limit < 0 ? nil : limit)
      } else if let (startRank, stopRank) = ranks {
        let n = set.count
        var start = startRank < 0 ? n + startRank : startRank
        var end = stopRank < 0 ? n + stopRank : stopRank
        if start < 0 { start = 0 }
        if start > end || start >= n { return .array([]) }
        if end >= n { end = n - 1 }
        entries = set.entries(ranks: start...end, reverse: reverse)
      } else {
        entries = []
      }
      var out: [RESPValue] = []
      for (member, value) in entries {
        let name = RESPValue.bulkString(ByteBuffer(bytes: member))
        if !withScores {
          out.append(name)
        } else if resp3 {
          out.append(.array([name, score(value)]))
        } else {
          out.append(contentsOf: [name, score(value)])
        }
      }
      return .array(out)
    }
  }

  /// `zslParseRange`'s reading of one bound: `(` for exclusive, then strtod to the end.
  static func scoreBound(_ args: Arguments, _ i: Int) -> (Double, Bool)? {
    var bytes = args.bytes(i)
    let exclusive = bytes.first == UInt8(ascii: "(")
    if exclusive { bytes.removeFirst() }
    guard let value = Arguments([ByteBuffer(bytes: bytes)]).double(0) else { return nil }
    return (value, exclusive)
  }
}
