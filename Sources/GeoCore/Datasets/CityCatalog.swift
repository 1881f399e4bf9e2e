import Foundation
import Geodesy

/// A city from `data/cities.csv` (GeoNames, CC BY 4.0).
public struct City: Hashable, Sendable {
  public var geonameID: Int
  public var name: String
  /// ISO 3166-1 alpha-2 code.
  public var country: String
  public var population: Int
  public var longitude: Double
  public var latitude: Double

  public init(
    geonameID: Int, name: String, country: String, population: Int, longitude: Double,
    latitude: Double
  ) {
    self.geonameID = geonameID
    self.name = name
    self.country = country
    self.population = population
    self.longitude = longitude
    self.latitude = latitude
  }

  public var coordinate: Coordinate { Coordinate(longitude: longitude, latitude: latitude) }
}

/// The cities of `data/cities.csv`, in file order (by GeoNames id).
public struct CityCatalog: Sendable {
  public let cities: [City]

  /// The columns `cities.csv` starts with, in order.
  public static let header = [
    "geonameid", "name", "country", "population", "longitude", "latitude",
  ]

  public init(cities: [City]) {
    self.cities = cities
  }

  /// Loads `cities.csv` from the given file, or from the data folder `DataDirectory.locate()`
  /// finds.
  public static func load(from url: URL? = nil) throws(DatasetError) -> CityCatalog {
    let file: URL
    if let url { file = url } else { file = try DataDirectory.file("cities.csv") }
    guard let data = FileManager.default.contents(atPath: file.path) else {
      throw .unreadable(path: file.path)
    }
    return try parse(Array(data), path: file.path)
  }

  /// The catalog from the data folder, loaded once per process (later changes to
  /// `CARDATLAS_DATA` or the current directory are not seen).
  public static func standard() throws(DatasetError) -> CityCatalog {
    try cachedStandard.get()
  }

  private static let cachedStandard: Result<CityCatalog, DatasetError> = {
    do throws(DatasetError) {
      return .success(try load())
    } catch {
      return .failure(error)
    }
  }()

  /// Parses the CSV: the header line, then one city a line. Fields may be quoted (`"a, b"`,
  /// with `""` for a quote inside); lines may end in `\n` or `\r\n`.
  public static func parse(_ bytes: [UInt8], path: String = "cities.csv") throws(DatasetError)
    -> CityCatalog
  {
    var cities = [City]()
    cities.reserveCapacity(bytes.count / 45)
    var fields = [String]()
    fields.reserveCapacity(8)
    var line = 0
    var i = 0
    let n = bytes.count
    let quote = UInt8(ascii: "\"")
    let comma = UInt8(ascii: ",")
    let cr = UInt8(ascii: "\r")
    let lf = UInt8(ascii: "\n")
    while i < n {
      line += 1
      fields.removeAll(keepingCapacity: true)
      // One record.
      while true {
        if i < n, bytes[i] == quote {
          var value = [UInt8]()
          i += 1
          while true {
            guard i < n else { throw .malformed(path: path, line: line, reason: "unclosed quote") }
            if bytes[i] == quote {
              if i + 1 < n, bytes[i + 1] == quote {
                value.append(quote)
                i += 2
              } else {
                i += 1
                break
              }
            } else {
              value.append(bytes[i])
              i += 1
            }
          }
          fields.append(String(decoding: value, as: UTF8.self))
        } else {
          let start = i
          while i < n, bytes[i] != comma, bytes[i] != lf, bytes[i] != cr { i += 1 }
          fields.append(String(decoding: bytes[start..<i], as: UTF8.self))
        }
        if i < n, bytes[i] == comma {
          i += 1
          continue
        }
        if i < n, bytes[i] == cr { i += 1 }
        if i < n, bytes[i] == lf {
          i += 1
        } else if i < n {
          throw .malformed(path: path, line: line, reason: "unexpected character after a field")
        }
        break
      }
      if fields.count == 1, fields[0].isEmpty { continue }  // blank line
      if line == 1 {
        guard Array(fields.prefix(header.count)) == header else {
          throw .malformed(
            path: path, line: line,
            reason:
              "expected header \(header.joined(separator: ",")), got \(fields.joined(separator: ","))"
          )
        }
        continue
      }
      guard fields.count >= header.count else {
        throw .malformed(
          path: path, line: line, reason: "expected \(header.count) fields, got \(fields.count)")
      }
      guard let id = Int(fields[0]) else {
        throw .malformed(
          path: path, line: line, reason: "geonameid '\(fields[0])' is not an integer")
      }
      guard let population = Int(fields[3]), population >= 0 else {
        throw .malformed(path: path, line: line, reason: "population '\(fields[3])' is not a count")
      }
      guard let longitude = Double(fields[4]), let latitude = Double(fields[5]),
        (try? Coordinate.validated(longitude: longitude, latitude: latitude)) != nil
      else {
        throw .malformed(
          path: path, line: line, reason: "invalid coordinates '\(fields[4])', '\(fields[5])'")
      }
      cities.append(
        City(
          geonameID: id, name: fields[1], country: fields[2], population: population,
          longitude: longitude, latitude: latitude))
    }
    guard line > 0 else { throw .malformed(path: path, line: 1, reason: "missing header") }
    return CityCatalog(cities: cities)
  }

  /// The most populous city (the first in file order among equals).
  public var mostPopulous: City? {
    cities.max { $0.population < $1.population }
  }

  /// The `count` most populous cities, largest first (ties by GeoNames id).
  public func largest(_ count: Int) -> [City] {
    Array(
      cities.sorted {
        $0.population > $1.population
          || ($0.population == $1.population && $0.geonameID < $1.geonameID)
      }.prefix(count))
  }

  /// The sum of all populations.
  public var totalPopulation: Int { cities.reduce(0) { $0 + $1.population } }
}
