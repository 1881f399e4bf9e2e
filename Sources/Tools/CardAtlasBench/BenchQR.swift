import ArgumentParser
import CardBench
import Foundation

struct BenchQR: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "qr",
    abstract: "Time QR codes of a share URL in process, as CARD.QR and /c/…/qr.png draw them.",
    discussion: """
      Encodes --url with libqrencode and draws it (PNG through libpng, JPEG through \
      libjpeg-turbo, SVG as text) --images times per case, each image timed alone after a \
      warm-up; prints the median, the 99th percentile and the image's size. The first case \
      (PNG, 512 px, ECC M: the default of CARD.QR and qr.png) is the goal's figure.
      """)

  @Option(help: "Images per case.") var images = 2000
  @Option(help: "The text encoded: a share URL.") var url =
    "https://cardatlas.example/c/k3x9qz/w7m2"

  func run() async throws {
    for figure in try QRBenchmark(images: images, url: url).run() {
      print(
        "\(figure.label): " + String(format: "%.1f µs", figure.nanoseconds / 1000)
          + "  (\(figure.note))")
    }
  }
}
