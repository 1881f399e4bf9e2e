import Cards
import Crypto
import Dispatch
import Foundation
import Hummingbird
import NIOCore
import PreviewImages
import Synchronization

/// `/c/<user>[/<slug>]/og.png`: the card's link preview (`og:image`), with the page's statuses
/// when there is no card to show, as the QR routes answer; a look-up of the share URL like any.
/// Each image is drawn once per edit (kept, as pages are), one at a time, off the event loop.
struct PreviewRoutes: Sendable {
  let pages: CardPages
  let drawn = DrawnPreviews()
  /// Serial: however many previews are asked for at once, one is drawn at a time.
  let queue = DispatchQueue(label: "cardatlas.previews", qos: .utility)

  func add(to router: Router<PageContext>) {
    router.get("/c/:username/og.png") { request, context in
      await image(request, context, context.parameters.get("username") ?? "", nil)
    }
    router.get("/c/:username/:slug/og.png") { request, context in
      await image(
        request, context, context.parameters.get("username") ?? "",
        context.parameters.get("slug"))
    }
  }

  func image(_ request: Request, _ context: PageContext, _ username: String, _ slug: String?)
    async -> Response
  {
    let card: Card
    let url: String
    switch pages.activeCard(username, slug, request, context) {
    case .failure(let refused): return refused.response
    case .success(let shown): (card, url) = shown
    }
    let preview = CardPageModel.preview(card, url: url)
    let tag = Self.etag(card.updatedAt, preview)
    // Checked again each time (`no-cache`): a card turned inactive must not be shown from a
    // cache.
    var headers: HTTPFields = [
      .eTag: tag, .cacheControl: "public, no-cache", .xContentTypeOptions: "nosniff",
      .contentSecurityPolicy: "default-src 'none'",
    ]
    if request.headers[.ifNoneMatch] == tag {
      return Response(status: .notModified, headers: headers)
    }
    let bytes: [UInt8]
    if let kept = drawn.image(card.id, tag: tag) {
      bytes = kept
    } else {
      switch await PreviewImages.draw(preview, on: queue) {
      case .failure(let error):
        return PageResponse.text("image not drawn: \(error.reason)\n", status: .internalServerError)
      case .success(let image): bytes = image
      }
      drawn.keep(card.id, tag: tag, image: bytes)
    }
    headers[.contentType] = "image/png"
    let name = slug.map { "\(username)-\($0)" } ?? username
    headers[.contentDisposition] = "inline; filename=\"\(name)-preview.png\""
    return Response(
      status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
  }

  /// Names the card's last edit and everything the image shows (an edit within the same
  /// second too).
  static func etag(_ updated: Date, _ preview: CardPreview) -> String {
    let key = [
      "\(updated.timeIntervalSince1970)", preview.name, preview.initials, preview.role ?? "",
      preview.tagline ?? "", preview.address, preview.theme?.hex ?? "",
    ].joined(separator: "\n")
    let digest = SHA256.hash(data: Array(key.utf8))
    let hex = Array("0123456789abcdef")
    return "\"og-" + String(digest.prefix(12).flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] })
      + "\""
  }
}

/// Previews as last drawn, by card, each with the tag of what it shows: at most `limit` (some
/// 30 KB each); a full store is emptied.
final class DrawnPreviews: Sendable {
  private let images = Mutex<[Int64: (tag: String, image: [UInt8])]>([:])
  let limit: Int

  init(limit: Int = 500) { self.limit = limit }

  func image(_ card: Int64, tag: String) -> [UInt8]? {
    images.withLock { $0[card] }.flatMap { $0.tag == tag ? $0.image : nil }
  }

  func keep(_ card: Int64, tag: String, image: [UInt8]) {
    images.withLock {
      if $0.count >= limit { $0.removeAll(keepingCapacity: true) }
      $0[card] = (tag, image)
    }
  }
}
