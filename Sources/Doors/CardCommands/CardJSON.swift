import Cards
import Commands
import ErrorLines
import Foundation
import NIOCore
import RESP

/// The cards' JSON (`Cards.CardJSON`, shared with the HTTP API) as RESP replies.
extension CardJSON {
  static func reply(_ card: Card, cards: Cards) -> RESPValue {
    .bulkString(ByteBuffer(string: text(card, cards: cards).text))
  }

  static func bulk(_ object: Any) -> RESPValue { .bulkString(ByteBuffer(bytes: data(object))) }
}

extension Result where Failure == CardError {
  func reply(_ format: (Success) -> RESPValue) -> RESPValue {
    switch self {
    case .success(let value): format(value)
    case .failure(let error): .error(error.message)
    }
  }
}
