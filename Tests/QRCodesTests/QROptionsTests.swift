import QRCodes
import Testing

/// The one judgement of a request's QR options, which CARD.QR, VENUE.QR and the HTTP endpoints
/// all go through after reading their own syntax.
@Suite("QR options")
struct QROptionsTests {
  @Test("nothing given: 512 pixels, opaque, M; each value given is kept")
  func defaultsAndValues() throws {
    let plain = try QROptions.checked(
      format: .svg, size: nil, transparent: false, errorCorrection: nil
    ).get()
    #expect(
      plain == QROptions(format: .svg, size: 512, transparent: false, errorCorrection: .medium))
    for (letter, level) in [("l", QRErrorCorrection.low), ("Q", .quartile), ("h", .high)] {
      let chosen = try QROptions.checked(
        format: .png, size: 64, transparent: true, errorCorrection: letter
      ).get()
      #expect(
        chosen == QROptions(format: .png, size: 64, transparent: true, errorCorrection: level))
    }
    #expect(
      try QROptions.checked(format: .jpeg, size: 2048, transparent: false, errorCorrection: "M")
        .get().size == 2048)
  }

  @Test("a side outside 64...2048 and any letter but L, M, Q, H are refused, the side first")
  func refusals() {
    for size in [Int.min, -1, 0, 63, 2049, Int.max] {
      #expect(
        QROptions.checked(format: .png, size: size, transparent: false, errorCorrection: nil)
          == .failure(.sizeOutOfRange(size)))
    }
    for letter in ["", "X", "MM", "medium", "1"] {
      #expect(
        QROptions.checked(format: .png, size: nil, transparent: false, errorCorrection: letter)
          == .failure(.badErrorCorrection), "\(letter)")
    }
    #expect(
      QROptions.checked(format: .png, size: 1, transparent: false, errorCorrection: "X")
        == .failure(.sizeOutOfRange(1)))
    #expect(QRCodeError.badErrorCorrection.reason == "ECC must be L, M, Q or H")
    #expect(QRCodeError.badFormat.reason == "the format must be PNG, SVG or JPEG")
  }

  @Test("drawing happens off the caller's thread and answers the image or the refusal")
  func draw() async throws {
    let options = QROptions(format: .png, size: 128)
    let image = try await QRCodes.draw("https://cards.test/c/x", options).get()
    #expect(image.contentType == "image/png" && image.bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    guard case .failure(let refused) = await QRCodes.draw("", options) else {
      Issue.record("an empty text was drawn")
      return
    }
    #expect(refused == .textNotEncodable)
  }
}
