import Cards
import Synchronization

/// Card pages as last rendered, so that a page is rendered once per edit rather than once per
/// visit: Mustache rendering was 60 % of the server's time under load (docs/BENCHMARKS.md, "Web
/// pages"). A page is reused only while the card's fields and URL are the ones it was rendered
/// from, so an edit is never served stale; whether the card may be shown at all (inactive,
/// deleted) is decided before, on every request. At most `limit` pages (a few KB each) are kept;
/// a full cache is emptied.
final class RenderedPages: Sendable {
  private struct Entry: Sendable {
    let fields: CardFields
    let url: String?
    let html: String
  }

  private let entries = Mutex<[Int64: Entry]>([:])
  let limit: Int

  init(limit: Int = 10_000) { self.limit = limit }

  /// The page of `card` at `url`: the kept one, or `render()`'s, then kept.
  func html(_ card: Card, url: String?, render: () -> String) -> String {
    if let kept = entries.withLock({ $0[card.id] }), kept.url == url, kept.fields == card.fields {
      return kept.html
    }
    let html = render()
    let entry = Entry(fields: card.fields, url: url, html: html)
    entries.withLock {
      if $0.count >= limit { $0.removeAll(keepingCapacity: true) }
      $0[card.id] = entry
    }
    return html
  }
}
