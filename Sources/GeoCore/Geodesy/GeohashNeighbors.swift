extension Geohash {
  /// The eight cells of the same precision around a cell. East and west wrap across the
  /// antimeridian. There is nothing beyond a pole, so for a cell in the polar row the poleward
  /// neighbours repeat that row (north is the cell itself, north-east is east, and so on): the
  /// nine cells still cover everything near the cell, with duplicates.
  public struct Neighbors: Hashable, Sendable {
    public var north: String
    public var northEast: String
    public var east: String
    public var southEast: String
    public var south: String
    public var southWest: String
    public var west: String
    public var northWest: String

    /// Clockwise from north.
    public var all: [String] {
      [north, northEast, east, southEast, south, southWest, west, northWest]
    }
  }

  /// The neighbours of a cell, or nil when the hash is invalid (see `decode`).
  public static func neighbors(_ hash: String) -> Neighbors? {
    guard let (x, y, precision) = cell(hash) else { return nil }
    let (lonBits, latBits) = bitCounts(precision)
    let columns = UInt64(1) << lonBits
    let rows = UInt64(1) << latBits
    func at(_ dx: Int, _ dy: Int) -> String {
      let column = dx == 0 ? x : (dx > 0 ? (x + 1) % columns : (x + columns - 1) % columns)
      let row = dy == 0 ? y : (dy > 0 ? min(y + 1, rows - 1) : (y == 0 ? 0 : y - 1))
      return string(x: column, y: row, precision: precision)
    }
    return Neighbors(
      north: at(0, 1), northEast: at(1, 1), east: at(1, 0), southEast: at(1, -1),
      south: at(0, -1), southWest: at(-1, -1), west: at(-1, 0), northWest: at(-1, 1))
  }
}
