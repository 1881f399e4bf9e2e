import RateLimits

/// Why a pin operation was refused (the doors turn it into their error replies, `ErrorLines`).
public enum PinError: Error, Sendable, Equatable {
  /// A field or argument out of its rules: which, and why.
  case invalid(String, String)
  /// The pin is not the caller's.
  case noPermission
  /// The pin is the caller's: its owner does not vote on it.
  case ownVote
  /// No such pin.
  case notFound
  /// The pin has no photo (yet).
  case noPhoto
  /// Outside the pin's circle: metres to its edge, rounded up.
  case notInRange(Int)
  /// The opener could not have got to the point since its last open.
  case implausibleMove(metres: Double, seconds: Double)
  /// A limit per account was reached.
  case limited(LimitExceeded)
  /// A search argument out of range.
  case badQuery(String)
  case notPersisted(String)
  /// The store wrote nothing (unreachable, or this node waits for ids): send it again.
  case tryAgain(String)
}
