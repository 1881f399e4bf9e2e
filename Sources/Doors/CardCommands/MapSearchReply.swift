import Cards
import Commands
import Foundation
import RESP

/// A map search's hit as its reply shows it: the id, its JSON, where it is and how far.
public protocol MapSearchHit {
  var id: Int64 { get }
  var longitude: Double { get }
  var latitude: Double { get }
  /// Metres.
  var distance: Double { get }
  /// `body` given the record's JSON text, copied into the reply as held.
  func withSummary(_ body: (UnsafeRawBufferPointer) -> Void)
}

extension CardHitView: MapSearchHit {
  public func withSummary(_ body: (UnsafeRawBufferPointer) -> Void) { body(summary) }
}

/// The map searches' reply (CARD.SEARCH, PIN.SEARCH, PIN.AT, PIN.TOP).
public enum MapSearchReply {
  /// Each hit: [id, distance (WITHDIST), [lon, lat] (WITHCOORD), summary JSON]; with CURSOR,
  /// [next cursor ("0" at the end), hits]. Written straight into the thread's reply buffer, as
  /// GEOSEARCH's is: each summary's bytes copied as they are held, no tree of values.
  public static func reply<Hit: MapSearchHit>(
    _ hits: [Hit], next: CardCursor?, withDistance: Bool, withCoordinates: Bool, unit: Double,
    paged: Bool, protocol version: RESPProtocolVersion
  ) -> RESPValue {
    let fields = 2 + (withDistance ? 1 : 0) + (withCoordinates ? 1 : 0)
    return ReplyBuffers.reply(protocol: version) { out in
      func bulk(_ text: String) {
        var text = text
        text.withUTF8 { out.bulk(UnsafeRawBufferPointer($0)) }
      }
      if paged {
        out.arrayHeader(2)
        bulk(next?.text ?? "0")
      }
      out.arrayHeader(hits.count)
      for hit in hits {
        out.arrayHeader(fields)
        out.integer(Int(hit.id))
        if withDistance { bulk(formatDistance(hit.distance / unit)) }
        if withCoordinates {
          out.arrayHeader(2)
          bulk("\(hit.longitude)")
          bulk("\(hit.latitude)")
        }
        hit.withSummary { out.bulk($0) }
      }
    }
  }

  /// Four decimals, as GEOSEARCH's WITHDIST.
  public static func formatDistance(_ d: Double) -> String {
    let scaled = (d * 10_000).rounded() / 10_000
    var text = String(format: "%.4f", scaled)
    if text == "-0.0000" { text = "0.0000" }
    return text
  }
}
