import Commands
import ErrorLines
import NIOCore
import QRCodes
import RESP

/// `PNG|SVG|JPEG [SIZE n] [TRANSPARENT] [ECC L|M|Q|H]`, as CARD.QR and VENUE.QR take them,
/// and the drawn image as a bulk string.
public enum QRArguments {
  /// The options from argument `i` on, or the error line: the keywords read here, the values
  /// judged by `QROptions.checked`, as the HTTP endpoints' are.
  public static func parse(_ args: Arguments, from i: Int) -> Result<QROptions, QRArgumentError> {
    guard i < args.count, let format = QRFormat(name: args.string(i)) else {
      return .failure(QRArgumentError(QRCodeError.badFormat.message))
    }
    var (size, transparent, letter): (Int?, Bool, String?) = (nil, false, nil)
    var i = i + 1
    while i < args.count {
      if args.is(i, "transparent") {
        transparent = true
        i += 1
      } else if args.is(i, "size"), i + 1 < args.count {
        guard let n = args.integer(i + 1) else {
          return .failure(QRArgumentError(RedisError.notInteger))
        }
        size = n
        i += 2
      } else if args.is(i, "ecc"), i + 1 < args.count {
        letter = args.string(i + 1)
        i += 2
      } else {
        return .failure(QRArgumentError(RedisError.syntax))
      }
    }
    return QROptions.checked(
      format: format, size: size, transparent: transparent, errorCorrection: letter
    ).mapError { QRArgumentError($0.message) }
  }

  /// What drawing holds at most, the raster as gray and alpha (`Invocation.replyBytes`): more
  /// than the image it makes.
  public static func replyBytes(_ options: QROptions) -> Int {
    options.size * options.size * 2
  }

  /// Draws `text` off the event loop (`QRCodes.draw`) and answers the image's bytes as a bulk
  /// string, or the error line.
  public static func draw(_ text: String, _ options: QROptions) -> PendingReply {
    { answer in
      QRCodes.draw(text, options) { drawn in
        switch drawn {
        case .success(let image): answer(.bulkString(ByteBuffer(bytes: image.bytes)))
        case .failure(let error): answer(.error(error.message))
        }
      }
    }
  }
}

/// A refused QR argument; `message` is the reply's error line.
public struct QRArgumentError: Error, Sendable {
  public let message: String
  init(_ message: String) { self.message = message }
}
