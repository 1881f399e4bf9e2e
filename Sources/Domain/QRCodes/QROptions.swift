/// An image format a QR code is drawn in.
public enum QRFormat: String, Sendable, CaseIterable {
  case png, svg, jpeg

  /// By a RESP argument (`PNG`, `SVG`, `JPEG` or `JPG`) or a file extension, in any case.
  public init?(name: String) {
    switch name.lowercased() {
    case "png": self = .png
    case "svg": self = .svg
    case "jpeg", "jpg": self = .jpeg
    default: return nil
    }
  }

  public var contentType: String {
    switch self {
    case .png: "image/png"
    case .svg: "image/svg+xml"
    case .jpeg: "image/jpeg"
    }
  }
}

/// How much of the symbol may be damaged and still read: about 7%, 15%, 25%, 30%.
public enum QRErrorCorrection: String, Sendable, CaseIterable {
  case low = "L"
  case medium = "M"
  case quartile = "Q"
  case high = "H"

  /// By its letter, in any case.
  public init?(letter: String) { self.init(rawValue: letter.uppercased()) }
}

/// What to draw: the format, the image's side in pixels, a transparent background (PNG and
/// SVG; a JPEG has none and is white), and the error correction.
public struct QROptions: Sendable, Equatable {
  /// Bounds on the side: the largest image is 2048² pixels (8 MB as gray and alpha), so a
  /// request cannot make the server hold much more.
  public static let sizes = 64...2048
  public static let defaultSize = 512

  /// The rules of the format and error-correction arguments, as CARD.QR, VENUE.QR and the
  /// HTTP endpoints state them.
  public static let formatRule = "the format must be PNG, SVG or JPEG"
  public static let eccRule = "ECC must be L, M, Q or H"

  public var format: QRFormat
  public var size: Int
  public var transparent: Bool
  public var errorCorrection: QRErrorCorrection

  public init(
    format: QRFormat, size: Int = QROptions.defaultSize, transparent: Bool = false,
    errorCorrection: QRErrorCorrection = .medium
  ) {
    self.format = format
    self.size = size
    self.transparent = transparent
    self.errorCorrection = errorCorrection
  }
}

extension QROptions {
  /// The options a request gives, checked by the rules CARD.QR, VENUE.QR and the HTTP QR
  /// endpoints share: each door reads its own syntax (RESP's keywords, a query string) into
  /// these values, and only here are they judged. `size` nil is the default side.
  public static func checked(
    format: QRFormat, size: Int?, transparent: Bool, errorCorrection letter: String?
  ) -> Result<QROptions, QRCodeError> {
    var options = QROptions(format: format, transparent: transparent)
    if let size {
      guard sizes.contains(size) else { return .failure(.sizeOutOfRange(size)) }
      options.size = size
    }
    if let letter {
      guard let level = QRErrorCorrection(letter: letter) else {
        return .failure(.badErrorCorrection)
      }
      options.errorCorrection = level
    }
    return .success(options)
  }
}

/// A drawn QR code: the file's bytes and its media type (for an HTTP reply's Content-Type).
public struct QRImage: Sendable {
  public let bytes: [UInt8]
  public let contentType: String
}

/// Why no image was drawn (the doors turn it into their error replies, `ErrorLines`).
public enum QRCodeError: Error, Sendable, Equatable {
  /// The side asked for is outside `QROptions.sizes`.
  case sizeOutOfRange(Int)
  /// The symbol (with its quiet zone) has more modules than the side has pixels.
  case sizeTooSmall(needed: Int)
  /// Empty text, or more than a QR code holds at this error correction.
  case textNotEncodable
  /// The encoder or an image library failed (out of memory).
  case failed(String)
  /// A format other than `QRFormat`'s.
  case badFormat
  /// An error-correction letter other than L, M, Q or H.
  case badErrorCorrection

  /// The message without its error code (an HTTP reply's text).
  public var reason: String {
    switch self {
    case .sizeOutOfRange(let size):
      "SIZE \(size) is out of range (\(QROptions.sizes.lowerBound) to \(QROptions.sizes.upperBound) pixels)"
    case .sizeTooSmall(let needed):
      "SIZE is too small for this code: it needs at least \(needed) pixels"
    case .textNotEncodable: "the text is empty or too long for a QR code"
    case .failed(let why): "QR code not drawn: \(why)"
    case .badFormat: QROptions.formatRule
    case .badErrorCorrection: QROptions.eccRule
    }
  }
}
