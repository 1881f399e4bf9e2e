import Assets
import RateLimits

extension AssetError {
  /// The error line both doors answer (RESP's error reply, the HTTP API's `error`).
  public var message: String {
    switch self {
    case .badKind: "ERR the kind must be IMAGE, LOGO or CV"
    case .size(let maximum): "INVALID an asset must be 1 to \(maximum) bytes"
    case .type(let kind): "INVALID \(kind.what)"
    case .pixels(let width, let height, let maximum):
      "INVALID the image is \(width)×\(height) pixels; at most \(maximum) pixels are accepted"
    case .noAccount: "NOTFOUND no such account"
    case .notFound: "NOTFOUND no such asset"
    case .notPersisted(let why): "ERR write not persisted: \(why)"
    case .quota(let used, let quota):
      "QUOTA your uploads use \(used) of your \(quota) bytes"
    case .limited(let limit): limit.message
    case .tryAgain(let why): "TRYAGAIN \(why)"
    }
  }
}
