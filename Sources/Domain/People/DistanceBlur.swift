import Crypto
import Foundation

/// The distance a search shows: the cells' distance moved by up to `spread` metres, then
/// rounded to 100 m. The move is fixed for a pair of people and the pair of cells they are in
/// (a keyed hash, its key the store's and never shown: the same on every node and after a
/// restart), so asking again from the same cell averages nothing away, and every other cell
/// asked from draws a new one: three distances from three chosen cells no longer meet in one
/// cell (docs/PROTOCOL.md, "What stops trilateration").
struct DistanceBlur: Sendable {
  let spread: Double
  let key: SymmetricKey

  /// What `viewer`, in the cell centred at `from`, is shown of `target`, in the cell centred at
  /// `to`, `metres` away.
  func shown(
    _ metres: Double, viewer: Int64, from: (Double, Double), target: Int64, to: (Double, Double)
  ) -> Int {
    guard spread > 0 else { return PresenceGrid.rounded(metres) }
    let text = "\(viewer) \(from.0) \(from.1) \(target) \(to.0) \(to.1)"
    let mac = HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: key)
    let bits = mac.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    let unit = Double(bits >> 11) / Double(1 << 53)
    return PresenceGrid.rounded(max(0, metres + (unit * 2 - 1) * spread))
  }
}
