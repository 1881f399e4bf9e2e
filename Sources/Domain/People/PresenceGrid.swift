import Foundation

/// Where the server holds a person: the centre of the ~100 m grid cell their position falls in.
/// The exact position a client sends is snapped on arrival and never kept, so no reply, and no
/// sequence of replies, can place anyone more closely than their cell (docs/PROTOCOL.md,
/// "What stops trilateration"). Rows are `step` degrees of latitude (about 111 m); each row has
/// as many equal columns as fit cells about as wide as they are tall, so the grid wraps at the
/// antimeridian and narrows toward the poles.
public struct PresenceGrid: Sendable {
  /// Degrees of latitude per row.
  public let step: Double

  public init(metres: Double = 100) {
    step = metres / 111_195
  }

  public func snap(longitude: Double, latitude: Double) -> (longitude: Double, latitude: Double) {
    let rows = Int((180 / step).rounded(.down))
    let row = min(rows - 1, max(0, Int(((latitude + 90) / step).rounded(.down))))
    let centre = -90 + (Double(row) + 0.5) * step
    let columns = max(1, Int((360 * cos(centre * .pi / 180) / step).rounded(.down)))
    let width = 360 / Double(columns)
    let column = min(columns - 1, max(0, Int(((longitude + 180) / width).rounded(.down))))
    return (-180 + (Double(column) + 0.5) * width, centre)
  }

  /// A distance as replies show it: to the nearest 100 m, at least 100 m.
  public static func rounded(_ metres: Double) -> Int {
    max(100, Int((metres / 100).rounded()) * 100)
  }

  /// The midpoint of two points on the sphere, to 3 decimals of a degree (about 100 m).
  public static func midpoint(
    _ a: (longitude: Double, latitude: Double), _ b: (longitude: Double, latitude: Double)
  ) -> (longitude: Double, latitude: Double) {
    func vector(_ p: (longitude: Double, latitude: Double)) -> (Double, Double, Double) {
      let (lon, lat) = (p.longitude * .pi / 180, p.latitude * .pi / 180)
      return (cos(lat) * cos(lon), cos(lat) * sin(lon), sin(lat))
    }
    let (u, v) = (vector(a), vector(b))
    let (x, y, z) = (u.0 + v.0, u.1 + v.1, u.2 + v.2)
    let lon = atan2(y, x) * 180 / .pi
    let lat = atan2(z, (x * x + y * y).squareRoot()) * 180 / .pi
    return ((lon * 1000).rounded() / 1000, (lat * 1000).rounded() / 1000)
  }
}
