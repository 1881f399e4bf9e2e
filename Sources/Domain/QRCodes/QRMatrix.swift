import CQRencode
import Foundation

/// A QR code symbol as libqrencode makes it: `width` × `width` modules, dark or light, without
/// the quiet zone.
public struct QRMatrix: Sendable, Equatable {
  public let width: Int
  /// Row by row; true is dark.
  public let modules: [Bool]

  /// The symbol for `text`'s UTF-8 bytes, at the smallest version that holds them.
  public init(_ text: String, errorCorrection: QRErrorCorrection) throws(QRCodeError) {
    guard !text.isEmpty, !text.utf8.contains(0) else { throw .textNotEncodable }
    // Case-sensitive, 8-bit by default (libqrencode still picks numeric or alphanumeric
    // segments where they are shorter).
    guard let code = QRcode_encodeString(text, 0, errorCorrection.level, QR_MODE_8, 1) else {
      throw errno == ERANGE || errno == EINVAL
        ? .textNotEncodable : .failed("libqrencode: errno \(errno)")
    }
    defer { QRcode_free(code) }
    let width = Int(code.pointee.width)
    // Bit 0 of each byte is the module's colour; the others say what the module is part of.
    let data = UnsafeBufferPointer(start: code.pointee.data, count: width * width)
    self.width = width
    self.modules = data.map { $0 & 1 == 1 }
  }

  public subscript(row: Int, column: Int) -> Bool { modules[row * width + column] }
}

extension QRErrorCorrection {
  var level: QRecLevel {
    switch self {
    case .low: QR_ECLEVEL_L
    case .medium: QR_ECLEVEL_M
    case .quartile: QR_ECLEVEL_Q
    case .high: QR_ECLEVEL_H
    }
  }
}
