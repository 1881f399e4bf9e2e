import Datasets
import Geodesy
import SpatialIndex

extension IndexWorkload {
  /// `points` points clustered around real cities in proportion to population, queries drawn
  /// the same way, city queries around the most populous city, and as many photo pins with view
  /// radii of 50 m to 1 km. Everything follows from `seed`.
  public static func realistic(points: Int, queries: Int, seed: UInt64) throws -> IndexWorkload {
    let generator = try DatasetGenerator()
    let items = generator.realistic(count: points, seed: seed).enumerated().map { i, c in
      Item(id: ItemID(i), longitude: c.longitude, latitude: c.latitude, attributes: 1)
    }
    var rng = SeededGenerator(seed: seed, stream: 99)
    let circles = generator.realistic(count: points, seed: seed &+ 1).enumerated().map { i, c in
      Item(
        id: ItemID(i), longitude: c.longitude, latitude: c.latitude,
        radius: Float(50 + 950 * rng.nextDouble()), attributes: 1)
    }
    return IndexWorkload(
      items: items, queries: generator.queryPoints(count: queries, seed: seed),
      cityQueries: generator.points(near: generator.densestCity, count: queries, seed: seed),
      circles: circles)
  }
}

extension IndexWorkload {
  /// The control: `points` points uniform on the sphere, queries uniform too (the "city"
  /// queries as well: uniform data has no dense place), and as many uniform photo pins.
  public static func uniform(points: Int, queries: Int, seed: UInt64) -> IndexWorkload {
    let items = DatasetGenerator.uniform(count: points, seed: seed).enumerated().map { i, c in
      Item(id: ItemID(i), longitude: c.longitude, latitude: c.latitude, attributes: 1)
    }
    var rng = SeededGenerator(seed: seed, stream: 99)
    let circles = DatasetGenerator.uniform(count: points, seed: seed &+ 1).enumerated().map {
      i, c in
      Item(
        id: ItemID(i), longitude: c.longitude, latitude: c.latitude,
        radius: Float(50 + 950 * rng.nextDouble()), attributes: 1)
    }
    let asked = DatasetGenerator.uniform(count: queries, seed: seed &+ 2)
    return IndexWorkload(
      items: items, queries: asked, cityQueries: asked,
      circles: circles)
  }
}
