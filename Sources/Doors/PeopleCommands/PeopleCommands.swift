import Cards
import Commands
import ErrorLines
import NIOCore
import People
import RESP

/// PRESENCE.*, PEOPLE.NEARBY and EXCHANGE.*: each reads its arguments, calls `People` as the
/// signed-in account, and formats the reply. The rules are in `People`.
public struct PeopleCommands: Sendable {
  let people: People
  let cards: Cards

  public init(people: People, cards: Cards) {
    self.people = people
    self.cards = cards
  }

  public var all: [CommandSpec] {
    [
      CommandSpec("presence.set", arity: -3, flags: .needsAccount) { [people] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        let args = call.arguments
        guard let lon = args.double(1), let lat = args.double(2) else {
          return .error(RedisError.notFloat)
        }
        var findable = true
        var ttl: Double?
        var i = 3
        while i < args.count {
          guard i + 1 < args.count else { return .error(RedisError.syntax) }
          if args.is(i, "findable") {
            switch args.string(i + 1) {
            case "1": findable = true
            case "0": findable = false
            default: return .error("ERR FINDABLE must be 0 or 1")
            }
          } else if args.is(i, "ttl") {
            guard let seconds = args.integer(i + 1) else { return .error(RedisError.notInteger) }
            ttl = Double(seconds)
          } else {
            return .error(RedisError.syntax)
          }
          i += 2
        }
        return people.setPresence(
          account: account, longitude: lon, latitude: lat, findable: findable, ttl: ttl
        ).reply { state in
          var object = JSONText()
          object.add("findable", state.findable)
          object.add("expiresAt", PeopleJSON.timestamp(state.expiresAt))
          return Self.bulk(object)
        }
      },
      CommandSpec("presence.clear", arity: 1, flags: .needsAccount) { [people] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        return .integer(people.clearPresence(account: account) ? 1 : 0)
      },
      CommandSpec("people.nearby", arity: -3, flags: .needsAccount) { [people, cards] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        let args = call.arguments
        guard let r = args.double(1) else { return .error(RedisError.notFloat) }
        guard let unit = args.unit(2) else {
          return .error("ERR unsupported unit provided. please use M, KM, FT, MI")
        }
        var count = people.configuration.defaultCount
        if args.count > 3 {
          guard args.count == 5, args.is(3, "count") else { return .error(RedisError.syntax) }
          guard let n = args.saturatingInteger(4), n > 0 else {
            return .error("ERR COUNT must be > 0")
          }
          count = min(n, people.configuration.maxCount)
        }
        return people.nearby(
          account: account, client: call.session.client, radius: r * unit, count: count
        ).reply { found in
          .array(found.map { Self.bulk(PeopleJSON.nearby($0, cards: cards)) })
        }
      },
      CommandSpec("exchange.request", arity: 2, flags: [.needsAccount, .write]) {
        [people, cards] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        guard let other = call.arguments.integer(1) else {
          return .error(PeopleError.notNearby.message)
        }
        call.pending = { answer in
          people.request(account: account, other: Int64(other)) { result in
            answer(
              result.reply { outcome in
                var object = JSONText()
                switch outcome {
                case .pending(let at):
                  object.add("status", "pending")
                  object.add("accountId", Int64(other))
                  object.add("requestedAt", PeopleJSON.timestamp(at))
                case .exchanged(let e):
                  object.add("status", "exchanged")
                  object.add(
                    "exchange", object: PeopleJSON.exchange(e, viewer: account, cards: cards))
                }
                return Self.bulk(object)
              })
          }
        }
        return .null
      },
      CommandSpec("exchange.pending", arity: 1, flags: .needsAccount) { [people, cards] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        return .array(
          people.pending(account: account).map { Self.bulk(PeopleJSON.request($0, cards: cards)) })
      },
      CommandSpec("exchange.list", arity: 1, flags: .needsAccount) { [people, cards] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        call.pending = { answer in
          people.exchanges(account: account) { result in
            answer(
              result.reply { list in
                .array(
                  list.map { Self.bulk(PeopleJSON.exchange($0, viewer: account, cards: cards)) })
              })
          }
        }
        return .null
      },
    ]
  }

  static func bulk(_ object: JSONText) -> RESPValue {
    .bulkString(ByteBuffer(string: object.text))
  }
}

extension Result where Failure == PeopleError {
  func reply(_ format: (Success) -> RESPValue) -> RESPValue {
    switch self {
    case .success(let value): format(value)
    case .failure(let error): .error(error.message)
    }
  }
}
