import Geodesy
import SpatialIndex

/// The fastest honest brute force: every point's unit vector in one flat array, a scan of
/// squared chord lengths keeping the k best in a small heap, then exact distances for those k.
/// What a user gets without an index; the benchmarks measure the index against it.
public final class FlatScan: @unchecked Sendable {
  private let xyz: [Double]
  private let items: [Item]
  private let sphere: Sphere

  public init(items: [Item], sphere: Sphere = .earth) {
    self.items = items
    self.sphere = sphere
    var xyz = [Double]()
    xyz.reserveCapacity(items.count * 3)
    for item in items {
      let v = UnitVector(longitude: item.longitude, latitude: item.latitude)
      xyz += [v.x, v.y, v.z]
    }
    self.xyz = xyz
  }

  /// The k nearest items, nearest first, ties by id.
  public func nearest(longitude: Double, latitude: Double, k: Int) -> [Hit] {
    guard k > 0 else { return [] }
    let q = UnitVector(longitude: longitude, latitude: latitude)
    // A max-heap of (chord², index) holding the k smallest seen.
    var heap = [(Double, Int)]()
    heap.reserveCapacity(k)
    xyz.withUnsafeBufferPointer { p in
      for i in 0..<items.count {
        let dx = p[i * 3] - q.x
        let dy = p[i * 3 + 1] - q.y
        let dz = p[i * 3 + 2] - q.z
        let c2 = dx * dx + dy * dy + dz * dz
        if heap.count < k {
          heap.append((c2, i))
          var j = heap.count - 1
          while j > 0, heap[(j - 1) / 2].0 < heap[j].0 {
            heap.swapAt(j, (j - 1) / 2)
            j = (j - 1) / 2
          }
        } else if c2 < heap[0].0 {
          heap[0] = (c2, i)
          var j = 0
          while true {
            var c = 2 * j + 1
            if c >= k { break }
            if c + 1 < k, heap[c + 1].0 > heap[c].0 { c += 1 }
            guard heap[c].0 > heap[j].0 else { break }
            heap.swapAt(j, c)
            j = c
          }
        }
      }
    }
    let from = sphere.distances(fromLongitude: longitude, latitude: latitude)
    return heap.map { (_, i) in
      let item = items[i]
      return Hit(
        id: item.id, longitude: item.longitude, latitude: item.latitude,
        distance: from.distance(longitude: item.longitude, latitude: item.latitude))
    }.sorted { $0.distance < $1.distance || ($0.distance == $1.distance && $0.id < $1.id) }
  }
}
