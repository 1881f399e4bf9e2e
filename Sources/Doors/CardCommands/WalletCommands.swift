import Cards
import Commands
import ErrorLines
import Foundation
import NIOCore
import RESP

/// WALLET.*: each reads its arguments, calls `Wallets` as the signed-in account, and answers
/// once the change is durable. The rules are in `Wallets`.
public struct WalletCommands: Sendable {
  let wallets: Wallets
  let cards: Cards

  public init(wallets: Wallets, cards: Cards) {
    self.wallets = wallets
    self.cards = cards
  }

  public var all: [CommandSpec] {
    [
      CommandSpec("wallet.add", arity: 2, flags: [.needsAccount, .write]) {
        [wallets, cards] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        let (codeOrURL, client) = (call.arguments.string(1), call.session.client)
        call.pending = { answer in
          wallets.add(account: account, codeOrURL, client: client) {
            answer($0.reply { Self.reply($0, cards: cards) })
          }
        }
        return .null
      },
      CommandSpec("wallet.del", arity: 2, flags: .needsAccount) { [wallets] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        guard let id = call.arguments.integer(1) else { return .integer(0) }
        call.pending = { answer in
          wallets.remove(account: account, cardId: Int64(id)) {
            answer($0.reply { .integer($0 ? 1 : 0) })
          }
        }
        return .null
      },
      CommandSpec("wallet.list", arity: -1, flags: .needsAccount) { [wallets, cards] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        let args = call.arguments
        var (count, cursor): (String?, String?) = (nil, nil)
        var i = 1
        while i < args.count {
          guard i + 1 < args.count else { return .error(RedisError.syntax) }
          if args.is(i, "count") {
            count = args.string(i + 1)
          } else if args.is(i, "cursor") {
            cursor = args.string(i + 1)
          } else {
            return .error(RedisError.syntax)
          }
          i += 2
        }
        let page: WalletPage
        do throws(CardError) { page = try WalletPage(count: count, cursor: cursor) } catch {
          return .error(error.message)
        }
        let (entries, next) = wallets.list(account: account, page: page)
        return .array([
          .bulkString(ByteBuffer(string: next?.text ?? "0")),
          .array(entries.map { Self.reply($0, cards: cards) }),
        ])
      },
      CommandSpec("wallet.search", arity: -2, flags: .needsAccount) { [wallets, cards] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        let args = call.arguments
        var count = 10
        if args.count > 2 {
          guard args.count == 4, args.is(2, "count") else { return .error(RedisError.syntax) }
          guard let n = args.saturatingInteger(3), n > 0 else {
            return .error("ERR COUNT must be > 0")
          }
          count = min(n, Wallets.maxSearchCount)
        }
        return .array(
          wallets.search(account: account, text: args.string(1), count: count).map {
            Self.reply($0, cards: cards)
          })
      },
    ]
  }

  /// The card as its holder sees it (`CardJSON.object(_:cards:)`).
  static func reply(_ entry: WalletEntry, cards: Cards) -> RESPValue {
    CardJSON.bulk(CardJSON.object(entry, cards: cards))
  }
}
