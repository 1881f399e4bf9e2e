/// QR codes for share URLs and check-in codes: encoded by libqrencode, drawn as PNG (libpng),
/// JPEG (libjpeg-turbo) or SVG text, with a 4-module quiet zone. No RESP, no HTTP: a handler
/// passes the text and options and sends back the bytes with their content type.
public enum QRCodes {
  public static func image(_ text: String, _ options: QROptions) throws(QRCodeError) -> QRImage {
    // The size is checked before the text is encoded: a bad request costs nothing.
    guard QROptions.sizes.contains(options.size) else { throw .sizeOutOfRange(options.size) }
    let matrix = try QRMatrix(text, errorCorrection: options.errorCorrection)
    let layout = try QRLayout(matrix, size: options.size)
    let bytes: [UInt8]
    switch options.format {
    case .png: bytes = try QRRaster.png(layout, transparent: options.transparent)
    case .jpeg: bytes = try QRRaster.jpeg(layout)
    case .svg: bytes = QRSVG.svg(layout, transparent: options.transparent)
    }
    return QRImage(bytes: bytes, contentType: options.format.contentType)
  }
}
