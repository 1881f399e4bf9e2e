import Cards
import Commands
import ErrorLines
import NIOCore
import RESP

/// NOTIFY.SET, NOTIFY.GET and CARD.STATS: what an owner hears of and sees of its cards' views.
/// The rules are in `Notices` and `CardViews`.
public struct NoticeCommands: Sendable {
  let notices: Notices
  let views: CardViews
  let wallets: Wallets

  public init(notices: Notices, views: CardViews, wallets: Wallets) {
    self.notices = notices
    self.views = views
    self.wallets = wallets
  }

  public var all: [CommandSpec] {
    [
      CommandSpec("notify.set", arity: 3, flags: .needsAccount) { [notices] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        // Any case, as Redis's keywords.
        let name = call.arguments.string(1).lowercased()
        guard let event = Notices.Event.allCases.first(where: { $0.rawValue.lowercased() == name })
        else {
          return .error("ERR unknown event: views or walletAdds")
        }
        let on: Bool
        switch call.arguments.string(2) {
        case "1": on = true
        case "0": on = false
        default: return .error("ERR the setting must be 0 or 1")
        }
        call.pending = { answer in
          notices.set(account: account, event, on) { answer($0.reply { Self.reply($0) }) }
        }
        return .null
      },
      CommandSpec("notify.get", arity: 1, flags: .needsAccount) { [notices] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        return Self.reply(notices.settings(of: account))
      },
      CommandSpec("card.stats", arity: -2, flags: .needsAccount) { [views, wallets] call in
        guard let owner = call.session.account else { return .error(RedisError.needsAccount) }
        let args = call.arguments
        guard let id = CardCommands.id(call, 1) else { return .error(CardError.notFound.message) }
        var to = UTCDay.today
        var from: Int?
        var i = 2
        while i < args.count {
          guard i + 1 < args.count, args.is(i, "from") || args.is(i, "to") else {
            return .error(RedisError.syntax)
          }
          guard let day = UTCDay.parse(args.string(i + 1)) else {
            return .error("ERR invalid date: yyyy-mm-dd")
          }
          if args.is(i, "from") { from = day } else { to = day }
          i += 2
        }
        // The last 30 days unless told.
        let (first, last) = (from ?? to - 29, to)
        call.pending = { answer in
          views.stats(owner: owner, id: id, from: first, to: last) { result in
            answer(
              result.reply { stats in
                var days: [String: Int] = [:]
                for (day, count) in stats.days { days[UTCDay.text(day)] = count }
                return CardJSON.bulk([
                  "cardId": stats.cardId, "from": UTCDay.text(stats.from),
                  "to": UTCDay.text(stats.to), "days": days, "total": stats.total,
                  "walletSaves": wallets.holderCount(of: id),
                ])
              })
          }
        }
        return .null
      },
    ]
  }

  static func reply(_ settings: Notices.Settings) -> RESPValue {
    CardJSON.bulk(
      Dictionary(uniqueKeysWithValues: Notices.Event.allCases.map { ($0.rawValue, settings[$0]) }))
  }
}
