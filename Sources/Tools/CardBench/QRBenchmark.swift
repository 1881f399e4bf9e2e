import Dispatch
import QRCodes

/// `cardatlas-bench qr`: the QR goal in process. A share URL is encoded and drawn, as CARD.QR and
/// `GET …/qr.png` do (`QRCodes.image`, without RESP or HTTP), image after image, each timed
/// alone: the median and 99th percentile per format, side and error-correction level.
public struct QRBenchmark {
  public var images: Int
  public var url: String

  public init(images: Int = 2000, url: String = "https://cardatlas.example/c/k3x9qz/w7m2") {
    self.images = images
    self.url = url
  }

  /// The cases timed: the default (PNG, 512 px, level M) first, the goal's figure.
  public static let cases: [QROptions] = [
    QROptions(format: .png),
    QROptions(format: .png, transparent: true),
    QROptions(format: .png, errorCorrection: .high),
    QROptions(format: .png, size: 1024),
    QROptions(format: .png, size: 2048),
    QROptions(format: .jpeg),
    QROptions(format: .svg),
  ]

  public func run() throws -> [CardBenchmark.Figure] {
    try Self.cases.map { options in
      // The first images warm the caches and the allocator; they are not counted.
      var bytes = 0
      for _ in 0..<max(10, images / 20) { bytes = try QRCodes.image(url, options).bytes.count }
      var each: [Double] = []
      each.reserveCapacity(images)
      for _ in 0..<images {
        let start = DispatchTime.now().uptimeNanoseconds
        let image = try QRCodes.image(url, options)
        each.append(Double(DispatchTime.now().uptimeNanoseconds - start))
        precondition(image.bytes.count == bytes, "the same image each time")
      }
      each.sort()
      let p99 = each[min(each.count - 1, each.count * 99 / 100)]
      let label =
        "\(options.format.rawValue.uppercased()) \(options.size) px, ECC \(options.errorCorrection.rawValue)"
        + (options.transparent ? ", transparent" : "")
      return CardBenchmark.Figure(
        label: label + " median", nanoseconds: each[each.count / 2],
        note: String(format: "p99 %.0f µs, %d bytes", p99 / 1000, bytes))
    }
  }
}
