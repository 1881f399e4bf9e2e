import Dispatch

extension QRCodes {
  /// Draws `text` on one of Dispatch's threads, never the caller's: a large PNG takes
  /// milliseconds, which neither an event loop nor Swift's cooperative pool should spend.
  /// `done` runs on that thread.
  public static func draw(
    _ text: String, _ options: QROptions,
    done: @escaping @Sendable (Result<QRImage, QRCodeError>) -> Void
  ) {
    DispatchQueue.global().async {
      do throws(QRCodeError) {
        done(.success(try image(text, options)))
      } catch {
        done(.failure(error))
      }
    }
  }

  /// `draw(_:_:done:)`, awaited.
  public static func draw(_ text: String, _ options: QROptions) async -> Result<
    QRImage, QRCodeError
  > {
    await withCheckedContinuation { continuation in
      draw(text, options) { continuation.resume(returning: $0) }
    }
  }
}
