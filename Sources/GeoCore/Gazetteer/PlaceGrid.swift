import Geodesy

/// The places bucketed by half-degree cells of longitude and latitude, for reverse geocoding.
/// A nearest search scans the cells under the exact bounds of a spherical cap
/// (`Sphere.capBounds`, which splits at the antimeridian and widens to all longitudes over a
/// pole), so it is exact everywhere; it starts with a small cap and widens it until a place
/// lies inside.
struct PlaceGrid: Sendable {
  static let cellDegrees = 0.5
  static let columns = 720
  static let rows = 360
  private let cellStart: [UInt32]
  private let members: [UInt32]

  init(lon: [Double], lat: [Double]) {
    let cells = lon.indices.map { Self.cell(lon: lon[$0], lat: lat[$0]) }
    var start = [UInt32](repeating: 0, count: Self.rows * Self.columns + 1)
    for cell in cells { start[cell + 1] += 1 }
    for i in 1..<start.count { start[i] += start[i - 1] }
    var fill = start
    var members = [UInt32](repeating: 0, count: lon.count)
    for (place, cell) in cells.enumerated() {
      members[Int(fill[cell])] = UInt32(place)
      fill[cell] += 1
    }
    self.cellStart = start
    self.members = members
  }

  private static func row(_ lat: Double) -> Int {
    min(rows - 1, max(0, Int(((lat + 90) / cellDegrees).rounded(.down))))
  }

  private static func column(_ lon: Double) -> Int {
    min(columns - 1, max(0, Int(((lon + 180) / cellDegrees).rounded(.down))))
  }

  private static func cell(lon: Double, lat: Double) -> Int { row(lat) * columns + column(lon) }

  /// The place nearest to a valid point and its distance in metres, if one is within
  /// `maximumDistance`; ties go to the lower place number.
  func nearest(
    lon: Double, lat: Double, within maximumDistance: Double, sphere: Sphere,
    places: (lon: [Double], lat: [Double])
  ) -> (place: Int, distance: Double)? {
    var radius = min(25_000, maximumDistance)
    while true {
      var best: (place: Int, distance: Double)?
      // A hair of padding: the cap's edges are exact only up to rounding.
      let pad = 1e-9
      for rect in sphere.capBounds(longitude: lon, latitude: lat, radius: radius) {
        for row in Self.row(rect.minLatitude - pad)...Self.row(rect.maxLatitude + pad) {
          let base = row * Self.columns
          for column in Self.column(rect.minLongitude - pad)...Self.column(rect.maxLongitude + pad)
          {
            for k in Int(cellStart[base + column])..<Int(cellStart[base + column + 1]) {
              let place = Int(members[k])
              let d = sphere.distance(
                longitude: lon, latitude: lat, longitude: places.lon[place],
                latitude: places.lat[place])
              guard d <= radius else { continue }
              if let b = best, (b.distance, b.place) <= (d, place) { continue }
              best = (place, d)
            }
          }
        }
      }
      if let best { return best }
      if radius >= maximumDistance || radius >= sphere.maximumDistance { return nil }
      radius = min(radius * 4, maximumDistance)
    }
  }
}
