import RateLimits

/// Why a people or exchange operation was refused (the doors turn it into their error replies, `ErrorLines`).
public enum PeopleError: Error, Sendable, Equatable {
  case invalid(field: String, reason: String)
  /// PEOPLE.NEARBY and EXCHANGE.REQUEST search from the caller's own live presence.
  case noPresence
  case noPrimaryCard
  /// Nobody by that id is findable near the caller.
  case notNearby
  case alreadyExchanged
  /// Too many searches in the last minute.
  case rateLimited(perMinute: Int)
  /// Another limit per account or address.
  case limited(LimitExceeded)
  case notPersisted(String)
  /// The store wrote nothing (unreachable, or this node waits for ids): send it again.
  case tryAgain(String)
  /// The store could not be read.
  case unavailable(String)
}

extension PeopleError {
  /// A failed write that left nothing in the store: to send again, or refused since another
  /// node exchanged the pair.
  var nothingWritten: Bool {
    switch self {
    case .tryAgain, .alreadyExchanged: true
    default: false
    }
  }
}
