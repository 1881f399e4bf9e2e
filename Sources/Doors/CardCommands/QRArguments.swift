import Commands
import Dispatch
import ErrorLines
import NIOCore
import QRCodes
import RESP

/// `PNG|SVG|JPEG [SIZE n] [TRANSPARENT] [ECC L|M|Q|H]`, as CARD.QR and VENUE.QR take them,
/// and the drawn image as a bulk string.
public enum QRArguments {
  /// The options from argument `i` on, or the error line.
  public static func parse(_ args: Arguments, from i: Int) -> Result<QROptions, QRArgumentError> {
    guard i < args.count, let format = QRFormat(name: args.string(i)) else {
      return .failure(QRArgumentError("ERR " + QROptions.formatRule))
    }
    var options = QROptions(format: format)
    var i = i + 1
    while i < args.count {
      if args.is(i, "transparent") {
        options.transparent = true
        i += 1
      } else if args.is(i, "size"), i + 1 < args.count {
        guard let size = args.integer(i + 1) else {
          return .failure(QRArgumentError(RedisError.notInteger))
        }
        guard QROptions.sizes.contains(size) else {
          return .failure(QRArgumentError(QRCodeError.sizeOutOfRange(size).message))
        }
        options.size = size
        i += 2
      } else if args.is(i, "ecc"), i + 1 < args.count {
        guard let level = QRErrorCorrection(letter: args.string(i + 1)) else {
          return .failure(QRArgumentError("ERR " + QROptions.eccRule))
        }
        options.errorCorrection = level
        i += 2
      } else {
        return .failure(QRArgumentError(RedisError.syntax))
      }
    }
    return .success(options)
  }

  /// What drawing holds at most, the raster as gray and alpha (`Invocation.replyBytes`): more
  /// than the image it makes.
  public static func replyBytes(_ options: QROptions) -> Int {
    options.size * options.size * 2
  }

  /// Draws `text` off the event loop (a large PNG takes milliseconds) and answers the image's
  /// bytes as a bulk string, or the error line.
  public static func draw(_ text: String, _ options: QROptions) -> PendingReply {
    { answer in
      DispatchQueue.global().async {
        do throws(QRCodeError) {
          let image = try QRCodes.image(text, options)
          var buffer = ByteBuffer()
          buffer.writeBytes(image.bytes)
          answer(.bulkString(buffer))
        } catch {
          answer(.error(error.message))
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
