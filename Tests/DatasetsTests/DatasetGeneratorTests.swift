import Geodesy
import Testing

@testable import Datasets

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct DatasetGeneratorTests {
  let generator: DatasetGenerator

  init() throws {
    generator = try DatasetGenerator()
  }

  private func allValid(_ points: [Coordinate]) -> Bool {
    points.allSatisfy {
      (try? Coordinate.validated(longitude: $0.longitude, latitude: $0.latitude)) != nil
    }
  }

  @Test func sameSeedSamePoints() {
    #expect(generator.realistic(count: 5000, seed: 1) == generator.realistic(count: 5000, seed: 1))
    #expect(
      generator.queryPoints(count: 500, seed: 1) == generator.queryPoints(count: 500, seed: 1))
    #expect(
      DatasetGenerator.uniform(count: 5000, seed: 1)
        == DatasetGenerator.uniform(count: 5000, seed: 1))
    // A shorter run is a prefix of a longer one.
    #expect(
      Array(generator.realistic(count: 5000, seed: 9).prefix(100))
        == generator.realistic(count: 100, seed: 9))
  }

  @Test func differentSeedsDiffer() {
    let a = generator.realistic(count: 1000, seed: 1)
    let b = generator.realistic(count: 1000, seed: 2)
    #expect(zip(a, b).filter { $0 == $1 }.count < 10)
    #expect(generator.queryPoints(count: 1000, seed: 1) != a)
    #expect(
      DatasetGenerator.uniform(count: 1000, seed: 1)
        != DatasetGenerator.uniform(count: 1000, seed: 2))
  }

  @Test func coordinatesAreValid() {
    #expect(allValid(generator.realistic(count: 50_000, seed: 5)))
    #expect(allValid(generator.queryPoints(count: 10_000, seed: 5)))
    #expect(allValid(DatasetGenerator.uniform(count: 50_000, seed: 5)))
    #expect(allValid(generator.points(near: generator.densestCity, count: 10_000, seed: 5)))
    // Cities on the antimeridian and far north still give valid points.
    let edge = CityCatalog(cities: [
      City(
        geonameID: 1, name: "East", country: "XX", population: 9_000_000, longitude: 179.99,
        latitude: 0),
      City(
        geonameID: 2, name: "West", country: "XX", population: 9_000_000, longitude: -180,
        latitude: -10),
      City(
        geonameID: 3, name: "Pole", country: "XX", population: 9_000_000, longitude: 0,
        latitude: 89.9),
    ])
    let edgeGenerator = try! DatasetGenerator(catalog: edge)
    let points = edgeGenerator.realistic(count: 30_000, seed: 3)
    #expect(allValid(points))
    #expect(points.contains { $0.longitude > 179.99 } && points.contains { $0.longitude < -179.99 })
  }

  @Test func denseCityIsTheMostPopulous() throws {
    let top = try #require(generator.catalog.mostPopulous)
    #expect(generator.densestCity == top)
    #expect(generator.denseCityCentre == top.coordinate)
    let around = generator.points(near: top, count: 2000, seed: 1)
    let sphere = Sphere.earth
    #expect(around.allSatisfy { sphere.distance($0, top.coordinate) <= 50_000 })
  }

  /// Cities are drawn in proportion to population, and points stay within 50 km of their city.
  @Test func cityShareMatchesPopulationShare() {
    let catalog = generator.catalog
    let top = Set(catalog.largest(10).map(\.geonameID))
    let share =
      Double(catalog.cities.filter { top.contains($0.geonameID) }.reduce(0) { $0 + $1.population })
      / Double(catalog.totalPopulation)
    var rng = SeededGenerator(seed: 2024)
    let n = 100_000
    var fromTop = 0
    var farthest = 0.0
    for _ in 0..<n {
      let (index, point) = generator.sample(&rng)
      let city = catalog.cities[index]
      if top.contains(city.geonameID) { fromTop += 1 }
      farthest = max(farthest, Sphere.earth.distance(point, city.coordinate))
    }
    let observed = Double(fromTop) / Double(n)
    let standardError = (share * (1 - share) / Double(n)).squareRoot()
    #expect(abs(observed - share) < 5 * standardError, "observed \(observed), expected \(share)")
    #expect(farthest <= 50_000 * (1 + 1e-12))
  }

  /// Seen only through the points: the share within 50 km of the ten largest cities lies between
  /// their population share (all their points are there) and the share of every city within
  /// 100 km of them (no other city's point can reach).
  @Test func shareNearLargestCitiesMatchesPopulation() {
    let catalog = generator.catalog
    let sphere = Sphere.earth
    let top = catalog.largest(10).map(\.coordinate)
    let total = Double(catalog.totalPopulation)
    func populationShare(within distance: Double) -> Double {
      Double(
        catalog.cities.filter { city in
          top.contains { sphere.distance($0, city.coordinate) <= distance }
        }
        .reduce(0) { $0 + $1.population }) / total
    }
    let lower = Double(catalog.largest(10).reduce(0) { $0 + $1.population }) / total
    let upper = populationShare(within: 100_000)
    let n = 100_000
    let points = generator.realistic(count: n, seed: 77)
    let near = points.filter { p in top.contains { sphere.distance($0, p) <= 50_000 } }.count
    let observed = Double(near) / Double(n)
    let tolerance = 5 * (0.25 / Double(n)).squareRoot()
    #expect(observed >= lower - tolerance, "observed \(observed), top-10 share \(lower)")
    #expect(observed <= upper + tolerance, "observed \(observed), share within 100 km \(upper)")
    // And the bounds are tight enough to mean something.
    #expect(lower > 0.02 && upper < 3 * lower)
  }

  /// Distances from the centre follow the Gamma(2, b) model: for cities too small for the 50 km
  /// cap to matter, the mean distance is `meanDistance(population:)`.
  @Test func distanceFromCentreFollowsTheModel() {
    let catalog = generator.catalog
    var rng = SeededGenerator(seed: 8)
    var ratioSum = 0.0
    var ratioSquares = 0.0
    var count = 0
    while count < 40_000 {
      let (index, point) = generator.sample(&rng)
      let city = catalog.cities[index]
      let mean = DatasetGenerator.meanDistance(population: city.population)
      guard mean <= 8_000 else { continue }  // P(r > 50 km) < 1e-5 for these
      let ratio = Sphere.earth.distance(point, city.coordinate) / mean
      ratioSum += ratio
      ratioSquares += ratio * ratio
      count += 1
    }
    let mean = ratioSum / Double(count)
    // Gamma(2, 1/2) has mean 1 and variance 1/2.
    #expect(abs(mean - 1) < 5 * (0.5 / Double(count)).squareRoot(), "mean ratio \(mean)")
    #expect(abs(ratioSquares / Double(count) - mean * mean - 0.5) < 0.03)
    #expect(DatasetGenerator.meanDistance(population: 1_000_000) == 5_000)
    #expect(DatasetGenerator.meanDistance(population: 15_000) < 1_000)
    #expect(DatasetGenerator.meanDistance(population: 1_000_000_000) == 50_000)
  }

  @Test func uniformCoversTheSphere() {
    let n = 100_000
    let points = DatasetGenerator.uniform(count: n, seed: 12)
    var x = 0.0
    var y = 0.0
    var z = 0.0
    for p in points {
      let v = UnitVector(longitude: p.longitude, latitude: p.latitude)
      x += v.x
      y += v.y
      z += v.z
    }
    // Each component of a uniform unit vector has mean 0 and variance 1/3.
    let bound = 5 * (1 / (3 * Double(n))).squareRoot()
    #expect(abs(x / Double(n)) < bound && abs(y / Double(n)) < bound && abs(z / Double(n)) < bound)
    let longitudes = points.map(\.longitude)
    #expect(longitudes.min()! < -179.9 && longitudes.max()! > 179.9)
    // sin(30°) = 1/2, so a quarter of the sphere lies north of 30° N.
    let north = Double(points.filter { $0.latitude > 30 }.count) / Double(n)
    #expect(abs(north - 0.25) < 5 * (0.25 * 0.75 / Double(n)).squareRoot())
    #expect(allValid(points))
  }

  @Test func rejectsACatalogWithoutPeople() {
    let empty = CityCatalog(cities: [
      City(geonameID: 1, name: "Ghost", country: "XX", population: 0, longitude: 0, latitude: 0)
    ])
    #expect(throws: DatasetError.self) { try DatasetGenerator(catalog: empty) }
  }
}
