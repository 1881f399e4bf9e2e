import Commands
import Fences
import Foundation
import Geodesy

/// A fence's area as FENCE.SET gives it: the shape, and how FENCE.GET describes it back.
struct FenceArea: Sendable {
  let shape: FenceShape
  /// JSON: `{"circle":{"center":[lon,lat],"radius":m}}`, `{"box":[w,s,e,n]}`, or
  /// `{"geojson":<the polygons as a MultiPolygon>}`.
  let description: Data

  init(shape: FenceShape, description: [String: Any]) {
    self.shape = shape
    self.description =
      (try? JSONSerialization.data(withJSONObject: description, options: [.sortedKeys])) ?? Data()
  }

  /// The area `description` describes (as the fences' log keeps it).
  init?(description: [String: Any]) {
    func numbers(_ value: Any?) -> [Double]? {
      (value as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue }
    }
    if let circle = description["circle"] as? [String: Any],
      let center = numbers(circle["center"]), center.count == 2,
      let radius = (circle["radius"] as? NSNumber)?.doubleValue,
      let shape = FenceShape.circle(
        Coordinate(longitude: center[0], latitude: center[1]), radius: radius)
    {
      self.init(shape: shape, description: description)
    } else if let box = numbers(description["box"]), box.count == 4,
      let shape = FenceShape.box(west: box[0], south: box[1], east: box[2], north: box[3])
    {
      self.init(shape: shape, description: description)
    } else if let geometry = description["geojson"] as? [String: Any],
      let data = try? JSONSerialization.data(withJSONObject: geometry),
      case .success(let area) = Self.geoJSON(Array(data))
    {
      self = area
    } else {
      return nil
    }
  }

  /// The most vertices one fence's polygons may have.
  static let vertexLimit = 10_000

  /// Reads `CIRCLE lon lat radius unit`, `BOX west south east north` or `GEOJSON <geometry>`
  /// from argument `i`; the index after it.
  static func parse(_ args: Arguments, at i: Int) -> Result<(FenceArea, Int), FenceArgumentError> {
    guard i < args.count else { return .failure(.syntax) }
    if args.is(i, "circle") {
      guard i + 4 < args.count else { return .failure(.syntax) }
      guard let lon = args.double(i + 1), let lat = args.double(i + 2),
        RedisGeohash.isValid(longitude: lon, latitude: lat)
      else { return .failure(.point) }
      guard let radius = args.double(i + 3), radius.isFinite, radius >= 0 else {
        return .failure(.radius)
      }
      guard let unit = args.unit(i + 4) else { return .failure(.unit) }
      let center = Coordinate(longitude: lon, latitude: lat)
      guard let shape = FenceShape.circle(center, radius: radius * unit) else {
        return .failure(.radius)
      }
      let area = FenceArea(
        shape: shape, description: ["circle": ["center": [lon, lat], "radius": radius * unit]])
      return .success((area, i + 5))
    }
    if args.is(i, "box") {
      guard i + 4 < args.count else { return .failure(.syntax) }
      let values = (1...4).map { args.double(i + $0) }
      guard let west = values[0], let south = values[1], let east = values[2],
        let north = values[3], [west, east].allSatisfy({ $0 >= -180 && $0 <= 180 }),
        [south, north].allSatisfy({ $0 >= -90 && $0 <= 90 }),
        let shape = FenceShape.box(west: west, south: south, east: east, north: north)
      else { return .failure(.box) }
      return .success(
        (FenceArea(shape: shape, description: ["box": [west, south, east, north]]), i + 5))
    }
    if args.is(i, "geojson") {
      guard i + 1 < args.count else { return .failure(.syntax) }
      return geoJSON(args.bytes(i + 1)).map { ($0, i + 2) }
    }
    return .failure(.syntax)
  }

  /// A GeoJSON Polygon or MultiPolygon (or a Feature holding one): rings of [lon, lat]
  /// positions, the first of each polygon its outline, the rest holes.
  static func geoJSON(_ bytes: [UInt8]) -> Result<FenceArea, FenceArgumentError> {
    guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    else { return .failure(.geoJSON("not a JSON object")) }
    let geometry =
      (object["type"] as? String == "Feature") ? object["geometry"] as? [String: Any] : object
    guard let geometry, let type = geometry["type"] as? String else {
      return .failure(.geoJSON("no geometry type"))
    }
    let polygons: [Any]
    switch type {
    case "Polygon": polygons = [geometry["coordinates"] as Any]
    case "MultiPolygon":
      guard let list = geometry["coordinates"] as? [Any] else {
        return .failure(.geoJSON("MultiPolygon without coordinates"))
      }
      polygons = list
    default: return .failure(.geoJSON("\(type) is not a Polygon or MultiPolygon"))
    }
    var parsed: [[[Coordinate]]] = []
    var vertices = 0
    for polygon in polygons {
      guard let rings = polygon as? [Any], !rings.isEmpty else {
        return .failure(.geoJSON("a polygon needs at least one ring"))
      }
      var out: [[Coordinate]] = []
      for ring in rings {
        guard let positions = ring as? [Any] else { return .failure(.geoJSON("a ring is a list")) }
        var points: [Coordinate] = []
        for position in positions {
          guard let pair = position as? [Any], pair.count >= 2,
            let lon = (pair[0] as? NSNumber)?.doubleValue,
            let lat = (pair[1] as? NSNumber)?.doubleValue,
            lon >= -180, lon <= 180, lat >= -90, lat <= 90
          else { return .failure(.geoJSON("a position is [lon, lat] in range")) }
          points.append(Coordinate(longitude: lon, latitude: lat))
        }
        vertices += points.count
        guard vertices <= vertexLimit else {
          return .failure(.geoJSON("more than \(vertexLimit) vertices"))
        }
        out.append(points)
      }
      parsed.append(out)
    }
    guard let shape = FenceShape.polygons(parsed) else {
      return .failure(.geoJSON("a ring needs 3 distinct positions and may wind round once"))
    }
    let description: [String: Any] = [
      "type": "MultiPolygon",
      "coordinates": parsed.map { $0.map { $0.map { [$0.longitude, $0.latitude] } } },
    ]
    return .success(FenceArea(shape: shape, description: ["geojson": description]))
  }
}

/// What FENCE.SET says of arguments it cannot take.
enum FenceArgumentError: Error, Equatable {
  case syntax
  case point
  case radius
  case unit
  case box
  case geoJSON(String)
  case detect(String)
  case name

  var message: String {
    switch self {
    case .syntax: RedisError.syntax
    case .point: "ERR invalid longitude,latitude pair"
    case .radius: "ERR radius must be a finite number, 0 or more"
    case .unit: "ERR unsupported unit provided. please use M, KM, FT, MI"
    case .box: "ERR a box is west south east north, in range, south not above north"
    case .geoJSON(let why): "ERR invalid GeoJSON: \(why)"
    case .detect(let word):
      "ERR unknown event '\(word)': use enter, inside, exit, outside, cross"
    case .name: "ERR a fence's name is 1 to 128 bytes"
    }
  }
}
