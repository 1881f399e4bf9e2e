/// Why a pin operation was refused; `message` is the reply's error line.
public enum PinError: Error, Sendable, Equatable {
  /// A field or argument out of its rules: which, and why.
  case invalid(String, String)
  /// The pin is not the caller's.
  case noPermission
  /// No such pin.
  case notFound
  /// The pin has no photo (yet).
  case noPhoto
  /// Outside the pin's circle: metres to its edge, rounded up.
  case notInRange(Int)
  /// A search argument out of range.
  case badQuery(String)
  case notPersisted(String)

  public var message: String {
    switch self {
    case .invalid(let field, let why): "INVALID \(field) \(why)"
    case .noPermission: "NOPERM the pin is not yours"
    case .notFound: "NOTFOUND no such pin"
    case .noPhoto: "NOTFOUND the pin has no photo"
    case .notInRange(let metres): "NOTINRANGE \(metres)"
    case .badQuery(let why): "ERR \(why)"
    case .notPersisted(let why): "ERR write not persisted: \(why)"
    }
  }
}
