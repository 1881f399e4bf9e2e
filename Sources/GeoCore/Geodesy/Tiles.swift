#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension WebMercator {
  /// A slippy-map tile (the XYZ scheme of OpenStreetMap and most web maps): 2^zoom × 2^zoom
  /// tiles cover the square world map, x from the antimeridian eastwards, y from the north.
  public struct Tile: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var zoom: Int

    public init(x: Int, y: Int, zoom: Int) {
      self.x = x
      self.y = y
      self.zoom = zoom
    }

    /// The tile's extent; its latitudes are within ±`maximumLatitude`.
    public var bounds: LonLatRect {
      let n = Double(1 << zoom)
      return LonLatRect(
        minLongitude: WebMercator.longitude(x: Double(x) / n),
        minLatitude: WebMercator.latitude(y: Double(y + 1) / n),
        maxLongitude: WebMercator.longitude(x: Double(x + 1) / n),
        maxLatitude: WebMercator.latitude(y: Double(y) / n))
    }
  }

  /// The deepest zoom supported, as in most tile servers (about 4 cm per 256-pixel tile pixel).
  public static let maximumZoom = 22

  /// The radius of the sphere Web Mercator projects (the WGS 84 semi-major axis), in metres.
  public static let radius = 6_378_137.0

  /// The tile containing the point. Points on the east or south edge of the map, and latitudes
  /// beyond ±`maximumLatitude`, go to the last tile rather than off the map.
  ///
  /// - Precondition: `zoom` is 0...22.
  public static func tile(longitude: Double, latitude: Double, zoom: Int) -> Tile {
    precondition((0...maximumZoom).contains(zoom), "zoom must be 0...22")
    let n = 1 << zoom
    func index(_ unit: Double) -> Int { min(max(Int((unit * Double(n)).rounded(.down)), 0), n - 1) }
    return Tile(x: index(x(longitude: longitude)), y: index(y(latitude: latitude)), zoom: zoom)
  }

  /// The ground width, in metres, of one tile at a latitude: the map scale shrinks with
  /// cos(latitude). Divide by the tile's pixel width (usually 256) for metres per pixel.
  public static func tileSize(latitude: Double, zoom: Int) -> Double {
    2 * Double.pi * radius * cos(latitude * (Double.pi / 180)) / Double(1 << zoom)
  }
}
