import Geodesy

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Seeded point sets for tests and benchmarks: realistic ones, clustered around real cities in
/// proportion to their population, and a uniform control. The same seed gives the same points on
/// every machine (see `SeededGenerator`).
///
/// A realistic point picks a city with probability population / total population, then sets off
/// from its centre at a uniform bearing for a distance drawn from Clark's negative-exponential
/// urban density model: density at distance r falls as e^(−r/b), so r follows a Gamma(2, b)
/// distribution, whose mean 2b is `meanDistance(population:)` (5 km for a city of a million,
/// growing with the square root of the population). Distances beyond `maximumDistance` (50 km)
/// are drawn again, so every point lies within 50 km of its city.
public struct DatasetGenerator: Sendable {
  public let catalog: CityCatalog
  public let sphere: Sphere
  /// No point lies farther than this from its city's centre, in metres.
  public let maximumDistance: Double
  /// Running population totals over the cities with a population above 0.
  private let cumulative: [UInt64]
  /// For each entry of `cumulative`, its city's index in `catalog.cities`.
  private let cityIndex: [Int]
  /// Gamma(2, b) scale b per entry of `cumulative`.
  private let scales: [Double]

  /// The sub-streams of a seed each method draws from.
  enum Stream: UInt64 {
    case realistic = 0
    case queries = 0x5155_4552_4945_53  // "QUERIES"
    case nearCity = 0x4349_5459  // "CITY"
    case uniform = 0x554E_4946  // "UNIF"
  }

  /// - Throws: `DatasetError.empty` when no city has a population above 0.
  public init(catalog: CityCatalog, sphere: Sphere = .earth, maximumDistance: Double = 50_000)
    throws(DatasetError)
  {
    precondition(maximumDistance > 0, "maximumDistance must be positive")
    self.catalog = catalog
    self.sphere = sphere
    self.maximumDistance = maximumDistance
    var cumulative = [UInt64]()
    var cityIndex = [Int]()
    var scales = [Double]()
    var total: UInt64 = 0
    for (i, city) in catalog.cities.enumerated() where city.population > 0 {
      total += UInt64(city.population)
      cumulative.append(total)
      cityIndex.append(i)
      scales.append(Self.meanDistance(population: city.population) / 2)
    }
    guard total > 0 else { throw .empty(path: "city catalog") }
    self.cumulative = cumulative
    self.cityIndex = cityIndex
    self.scales = scales
  }

  /// A generator over `CityCatalog.standard()`, the cities in `data/cities.csv`.
  public init() throws(DatasetError) {
    try self.init(catalog: CityCatalog.standard())
  }

  /// The mean distance of a city's points from its centre, in metres: 5 km × √(population / 1
  /// million), between 250 m and 50 km.
  public static func meanDistance(population: Int) -> Double {
    min(50_000, max(250, 5_000 * (Double(max(0, population)) / 1_000_000).squareRoot()))
  }

  // MARK: Sampling

  /// The index in `catalog.cities` of a city drawn in proportion to population.
  public func drawCity(_ rng: inout SeededGenerator) -> Int {
    cityIndex[drawEntry(&rng)]
  }

  private func drawEntry(_ rng: inout SeededGenerator) -> Int {
    let target = rng.next(below: cumulative[cumulative.count - 1])
    // The first entry whose running total exceeds the target.
    var lo = 0
    var hi = cumulative.count - 1
    while lo < hi {
      let mid = (lo + hi) / 2
      if cumulative[mid] > target { hi = mid } else { lo = mid + 1 }
    }
    return lo
  }

  /// One realistic point and the index in `catalog.cities` of the city it was placed around.
  public func sample(_ rng: inout SeededGenerator) -> (city: Int, coordinate: Coordinate) {
    let entry = drawEntry(&rng)
    let city = catalog.cities[cityIndex[entry]]
    return (cityIndex[entry], point(around: city.coordinate, scale: scales[entry], &rng))
  }

  /// A point around `centre` at a uniform bearing and a Gamma(2, `scale`) distance, redrawn while
  /// beyond `maximumDistance`.
  private func point(around centre: Coordinate, scale: Double, _ rng: inout SeededGenerator)
    -> Coordinate
  {
    var distance: Double
    repeat {
      // The sum of two exponentials; the product of the uniforms saves a logarithm.
      distance = -scale * log(rng.nextOpenDouble() * rng.nextOpenDouble())
    } while distance > maximumDistance
    let bearing = 360 * rng.nextDouble()
    return offset(centre, bearing: bearing, distance: distance)
  }

  /// The great-circle destination, folded into valid ranges.
  private func offset(_ start: Coordinate, bearing: Double, distance: Double) -> Coordinate {
    let c = sphere.destination(
      longitude: start.longitude, latitude: start.latitude, bearing: bearing, distance: distance)
    return Coordinate(
      longitude: min(180, max(-180, c.longitude)), latitude: min(90, max(-90, c.latitude)))
  }

  // MARK: Datasets

  /// `count` realistic points: clustered around real cities in proportion to population.
  public func realistic(count: Int, seed: UInt64) -> [Coordinate] {
    draw(count: count, seed: seed, stream: .realistic)
  }

  /// `count` query points distributed like the realistic data (people ask from where people
  /// are), from a sub-stream of `seed` independent of `realistic(count:seed:)`'s.
  public func queryPoints(count: Int, seed: UInt64) -> [Coordinate] {
    draw(count: count, seed: seed, stream: .queries)
  }

  private func draw(count: Int, seed: UInt64, stream: Stream) -> [Coordinate] {
    precondition(count >= 0, "count must be non-negative")
    var rng = SeededGenerator(seed: seed, stream: stream.rawValue)
    var points = [Coordinate]()
    points.reserveCapacity(count)
    for _ in 0..<count { points.append(sample(&rng).coordinate) }
    return points
  }

  /// `count` points around one city, spread as that city's share of realistic points is.
  public func points(near city: City, count: Int, seed: UInt64) -> [Coordinate] {
    precondition(count >= 0, "count must be non-negative")
    var rng = SeededGenerator(seed: seed, stream: Stream.nearCity.rawValue)
    let scale = Self.meanDistance(population: city.population) / 2
    return (0..<count).map { _ in point(around: city.coordinate, scale: scale, &rng) }
  }

  /// The most populous city in the catalog, where the data is densest.
  public var densestCity: City {
    catalog.cities[cityIndex.max { catalog.cities[$0].population < catalog.cities[$1].population }!]
  }

  /// The centre of `densestCity` (Shanghai, 121.45806 E 31.22222 N, in the bundled data).
  public var denseCityCentre: Coordinate { densestCity.coordinate }

  /// `count` points uniform on the sphere: longitude uniform in -180..<180, the sine of latitude
  /// uniform in -1..<1.
  public static func uniform(count: Int, seed: UInt64) -> [Coordinate] {
    precondition(count >= 0, "count must be non-negative")
    var rng = SeededGenerator(seed: seed, stream: Stream.uniform.rawValue)
    return (0..<count).map { _ in uniformPoint(&rng) }
  }

  /// One point uniform on the sphere.
  public static func uniformPoint(_ rng: inout SeededGenerator) -> Coordinate {
    let longitude = -180 + 360 * rng.nextDouble()
    let z = 2 * rng.nextDouble() - 1
    let latitude = asin(z) * (180 / Double.pi)
    return Coordinate(longitude: longitude, latitude: min(90, max(-90, latitude)))
  }
}
