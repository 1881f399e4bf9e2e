import Datasets
import NIOCore
import RESPClient

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Points as parallel arrays of degrees.
public struct PointSet: Sendable, Equatable {
  public var longitudes: [Double]
  public var latitudes: [Double]

  public init(longitudes: [Double], latitudes: [Double]) {
    precondition(longitudes.count == latitudes.count, "one latitude per longitude")
    self.longitudes = longitudes
    self.latitudes = latitudes
  }

  public var count: Int { longitudes.count }

  /// `count` points clustered around real cities in proportion to their population (the
  /// `Datasets` realistic distribution), the same for the same seed.
  public static func realistic(count: Int, seed: UInt64, generator: DatasetGenerator) -> PointSet {
    let points = generator.realistic(count: count, seed: seed)
    return PointSet(longitudes: points.map(\.longitude), latitudes: points.map(\.latitude))
  }

  /// Query centres drawn like the realistic points (people search from where people are), from a
  /// stream of the seed independent of the points'.
  public static func queryCentres(count: Int, seed: UInt64, generator: DatasetGenerator)
    -> PointSet
  {
    let points = generator.queryPoints(count: count, seed: seed)
    return PointSet(longitudes: points.map(\.longitude), latitudes: points.map(\.latitude))
  }
}

/// Requests encoded once, back to back, so that sending a window of them costs one slice of a
/// buffer: the generator must cost far less than the server it loads.
public final class RequestPool: Sendable {
  /// The requests, from reader index 0.
  let bytes: ByteBuffer
  /// Where each request starts, and then where the last one ends.
  let offsets: [Int]

  init(requests: [[String]]) {
    precondition(!requests.isEmpty, "a pool needs requests")
    var bytes = ByteBuffer()
    var offsets = [0]
    offsets.reserveCapacity(requests.count + 1)
    for request in requests {
      CommandEncoding.write(request, to: &bytes)
      offsets.append(bytes.writerIndex)
    }
    self.bytes = bytes
    self.offsets = offsets
  }

  var count: Int { offsets.count - 1 }

  /// Requests `start..<start + count`, as one buffer sharing the pool's storage.
  func window(from start: Int, count: Int) -> ByteBuffer {
    let begin = offsets[start]
    return bytes.getSlice(at: begin, length: offsets[start + count] - begin)!
  }

  /// The requests of a workload. A fixed request (PING, a search from a fixed centre) is repeated
  /// `pipeline` times so that any window is one slice; varied ones are `size` requests (at least
  /// `pipeline`) drawn with the seed.
  ///
  /// Moves come in pairs: a member's move by +d sits half a pool away from its move by −d, so
  /// cycling through the pool always really moves members instead of setting them again where
  /// they already are.
  static func make(
    parameters: WorkloadParameters, pipeline: Int, seed: UInt64, members: PointSet?,
    centres: PointSet?, size: Int = LoadConfiguration.defaultPoolSize
  ) -> RequestPool {
    let size = max(size, pipeline)
    let p = parameters
    func search(_ index: Int) -> [String] {
      if let fixed = p.center {
        return p.search(
          longitude: CommandEncoding.number(fixed.longitude),
          latitude: CommandEncoding.number(fixed.latitude))
      }
      let centres = centres!
      let i = index % centres.count
      return p.search(
        longitude: CommandEncoding.number(centres.longitudes[i]),
        latitude: CommandEncoding.number(centres.latitudes[i]))
    }
    func presence(_ index: Int) -> [String] {
      if let fixed = p.center {
        return [
          "PRESENCE.SET", CommandEncoding.number(fixed.longitude),
          CommandEncoding.number(fixed.latitude),
        ]
      }
      let i = index % centres!.count
      return [
        "PRESENCE.SET", CommandEncoding.number(centres!.longitudes[i]),
        CommandEncoding.number(centres!.latitudes[i]),
      ]
    }
    switch p.workload {
    case .ping:
      return RequestPool(requests: Array(repeating: ["PING"], count: pipeline))
    case .checkin:
      preconditionFailure("the checkin workload's requests need its venues' codes (VenueLoader)")
    case .radius, .knn, .box, .cards, .pins:
      if p.center != nil {
        return RequestPool(requests: Array(repeating: search(0), count: pipeline))
      }
      return RequestPool(requests: (0..<size).map(search))
    case .presence:
      return RequestPool(requests: (0..<size).map(presence))
    case .add:
      return RequestPool(requests: moves(size, key: p.key, members: members!, seed: seed))
    case .mixed:
      var rng = SeededGenerator(seed: seed, stream: 0x4D49_5845_44)  // "MIXED"
      let isMove = (0..<size).map { _ in rng.nextDouble() < Workload.mixedAddFraction }
      var moves = moves(isMove.count { $0 }, key: p.key, members: members!, seed: seed)[...]
      var requests: [[String]] = []
      requests.reserveCapacity(size)
      for (index, move) in isMove.enumerated() {
        requests.append(move ? moves.popFirst()! : search(index))
      }
      return RequestPool(requests: requests)
    }
  }

  /// `count` GEOADD requests, each moving a random member up to 100 m from where the dataset put
  /// it: the first half by +d, the second half the same members by −d.
  public static func moves(_ count: Int, key: String, members: PointSet, seed: UInt64)
    -> [[String]]
  {
    precondition(members.count > 0, "moves need members")
    var rng = SeededGenerator(seed: seed, stream: 0x4D4F_5645_53)  // "MOVES"
    let half = (count + 1) / 2
    var firsts: [[String]] = []
    var seconds: [[String]] = []
    firsts.reserveCapacity(half)
    seconds.reserveCapacity(half)
    let metresPerDegree = 111_195.0
    for _ in 0..<half {
      let member = rng.nextInt(below: members.count)
      let distance = 100 * rng.nextDouble()
      let bearing = 2 * Double.pi * rng.nextDouble()
      let longitude = members.longitudes[member]
      let latitude = members.latitudes[member]
      let dLat = distance * cos(bearing) / metresPerDegree
      let dLon = distance * sin(bearing) / (metresPerDegree * max(0.01, cos(latitude * .pi / 180)))
      for (sign, list) in [(1.0, 0), (-1.0, 1)] {
        let lon = min(180, max(-180, longitude + sign * dLon))
        let lat = min(85.05112878, max(-85.05112878, latitude + sign * dLat))
        let request = [
          "GEOADD", key, CommandEncoding.number(lon), CommandEncoding.number(lat), "p\(member)",
        ]
        if list == 0 { firsts.append(request) } else { seconds.append(request) }
      }
    }
    return Array((firsts + seconds).prefix(count))
  }
}
