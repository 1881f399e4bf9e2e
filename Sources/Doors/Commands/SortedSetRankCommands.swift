import Keyspace
import RESP

/// The sorted-set reads answered from the order alone, in O(log n): ZRANK, ZREVRANK, ZCOUNT.
extension SortedSetCommands {
  static let ranks: [CommandSpec] = [
    CommandSpec("zrank", arity: 3) { zrank(&$0, reverse: false) },
    CommandSpec("zrevrank", arity: 3) { zrank(&$0, reverse: true) },
    CommandSpec("zcount", arity: 4, run: zcount),
  ]

  /// ZRANK / ZREVRANK key member: the member's rank, or null.
  static func zrank(_ call: inout Invocation, reverse: Bool) -> RESPValue {
    let args = call.arguments
    let member = args.bytes(2)
    return call.read { db in
      switch GeoCommands.sortedSet(db, args, 1) {
      case .failure(let error): return .error(error.message)
      case .success(let set):
        guard let set, let rank = set.rank(of: member) else { return .null }
        return .integer(reverse ? set.count - 1 - rank : rank)
      }
    }
  }

  /// ZCOUNT key min max, the bounds read as ZRANGE BYSCORE reads them.
  static func zcount(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    guard let low = scoreBound(args, 2), let high = scoreBound(args, 3) else {
      return .error("ERR min or max is not a float")
    }
    let range = ScoreRange(min: low.0, minExclusive: low.1, max: high.0, maxExclusive: high.1)
    return call.read { db in
      switch GeoCommands.sortedSet(db, args, 1) {
      case .failure(let error): return .error(error.message)
      case .success(let set): return .integer(set?.count(scores: range) ?? 0)
      }
    }
  }
}
