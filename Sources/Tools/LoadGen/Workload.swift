import Datasets
import NIOCore
import RESPClient

/// What each request of a run does.
public enum Workload: String, Sendable, CaseIterable, Codable {
  /// `GEOSEARCH key FROMLONLAT lon lat BYRADIUS r km ASC COUNT 10`.
  case radius
  /// The k nearest: `GEOSEARCH key FROMLONLAT lon lat BYRADIUS R km ASC COUNT k`. Redis has no
  /// unbounded nearest-neighbour search, so this is a radius search with a large radius R
  /// (`knnRadiusKm`, 50 km by default: the spread of a city's points in the dataset), sorted
  /// nearest first and cut at k. It is the true k nearest whenever k points lie within R.
  case knn
  /// `GEOSEARCH key FROMLONLAT lon lat BYBOX w h km ASC COUNT 10`.
  case box
  /// `GEOADD key lon lat p<N>`: moves an existing member a small random step (up to 100 m).
  case add
  /// 90 % `radius` requests and 10 % `add` requests, shuffled (seeded).
  case mixed
  /// `PING`: what the server and the generator cost with no work at all.
  case ping
  /// `CARD.SEARCH FROMLONLAT lon lat BYRADIUS r km COUNT 10` (CardAtlas only), signed in as an
  /// account, over a card at each point: the cards are made before timing (`CardLoader`).
  /// With `--baseline radius`, GEOSEARCH on the same points runs in the same run.
  case cards
  /// `PIN.AT lon lat` (CardAtlas only), signed in, over a photo pin at each point with a
  /// viewing radius of 10 m to 1 km (`PinRadii`): the pins are made before timing
  /// (`CardLoader`). With `--baseline radius`, GEOSEARCH on the same points runs in the same run.
  case pins
  /// `CHECKIN <code> <lon> <lat>` (CardAtlas only), each connection signed in as a visitor of
  /// its own, at venues made before timing (`VenueLoader`): each check-in is a durable write,
  /// and closes the visitor's visit at the venue before.
  case checkin
  /// `PRESENCE.SET lon lat` (CardAtlas only): each connection signed in as an account of its
  /// own (made before timing, without cards), moving its presence from centre to centre.
  case presence

  /// The workloads that sign in and make their records through the protocol before timing, at
  /// the points (`checkin` makes venues of its own, not at the points).
  public var makesRecords: Bool { self == .cards || self == .pins }

  /// Whether the workload reads or moves the points of the dataset.
  public var usesPoints: Bool { self != .ping && self != .checkin }

  /// The share of `add` requests in `mixed`.
  public static let mixedAddFraction = 0.1
}

/// A longitude and latitude in degrees.
public struct LonLat: Sendable, Hashable, Codable, CustomStringConvertible {
  public var longitude: Double
  public var latitude: Double

  public init(longitude: Double, latitude: Double) {
    self.longitude = longitude
    self.latitude = latitude
  }

  /// Parses `lon,lat`, checked against the ranges Redis accepts.
  public init(parsing text: String) throws(LoadGenError) {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 2,
      let longitude = Double(parts[0].trimmingSpaces),
      let latitude = Double(parts[1].trimmingSpaces)
    else { throw .invalidArgument("'\(text)' is not lon,lat (e.g. 139.6917,35.6895)") }
    guard (-180...180).contains(longitude), (-85.05112878...85.05112878).contains(latitude) else {
      throw .invalidArgument(
        "'\(text)' is out of range: longitude -180...180, latitude -85.05112878...85.05112878")
    }
    self.init(longitude: longitude, latitude: latitude)
  }

  public var description: String {
    CommandEncoding.number(longitude) + "," + CommandEncoding.number(latitude)
  }
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    var text = self
    while text.first == " " { text = text.dropFirst() }
    while text.last == " " { text = text.dropLast() }
    return text
  }
}

/// The shape of the requests: the workload and its parameters.
public struct WorkloadParameters: Sendable, Equatable {
  public var workload: Workload
  /// The GEO key searched and moved.
  public var key: String
  /// `radius`'s (and `mixed`'s searches') radius.
  public var radiusKm: Double
  /// `knn`'s k.
  public var k: Int
  /// `knn`'s bounding radius (see `Workload.knn`).
  public var knnRadiusKm: Double
  public var boxWidthKm: Double
  public var boxHeightKm: Double
  /// A fixed query centre; nil draws centres from the realistic distribution.
  public var center: LonLat?
  /// `cards`: `FILTER company <company>` on every search.
  public var company: String?

  public init(
    workload: Workload, key: String = "bench:points", radiusKm: Double = 1, k: Int = 10,
    knnRadiusKm: Double = 50, boxWidthKm: Double = 2, boxHeightKm: Double = 2,
    center: LonLat? = nil,
    company: String? = nil
  ) {
    self.company = company
    self.workload = workload
    self.key = key
    self.radiusKm = radiusKm
    self.k = k
    self.knnRadiusKm = knnRadiusKm
    self.boxWidthKm = boxWidthKm
    self.boxHeightKm = boxHeightKm
    self.center = center
  }

  /// The request, with `<lon> <lat>` and `<member>` standing for what varies.
  public var commandTemplate: String {
    let longitude = center.map { CommandEncoding.number($0.longitude) } ?? "<lon>"
    let latitude = center.map { CommandEncoding.number($0.latitude) } ?? "<lat>"
    let search = search(longitude: longitude, latitude: latitude).joined(separator: " ")
    let add = "GEOADD \(key) <lon> <lat> <member>"
    switch workload {
    case .ping: return "PING"
    case .checkin: return "CHECKIN <code> <lon> <lat>"
    case .add: return add
    case .radius, .knn, .box, .cards, .pins: return search
    case .presence: return "PRESENCE.SET \(longitude) \(latitude)"
    case .mixed:
      let percent = Int((Workload.mixedAddFraction * 100).rounded())
      return "\(100 - percent)% \(search) + \(percent)% \(add)"
    }
  }

  /// The search request of `radius`, `knn` and `box` (and `mixed`'s searches).
  func search(longitude: String, latitude: String) -> [String] {
    if workload == .pins { return ["PIN.AT", longitude, latitude] }
    if workload == .cards {
      return [
        "CARD.SEARCH", "FROMLONLAT", longitude, latitude, "BYRADIUS",
        CommandEncoding.number(radiusKm, decimals: 6), "km", "COUNT", "10",
      ] + (company.map { ["FILTER", "company", $0] } ?? [])
    }
    var command = ["GEOSEARCH", key, "FROMLONLAT", longitude, latitude]
    switch workload {
    case .knn:
      command += [
        "BYRADIUS", CommandEncoding.number(knnRadiusKm, decimals: 6), "km", "ASC", "COUNT",
        String(k),
      ]
    case .box:
      command += [
        "BYBOX", CommandEncoding.number(boxWidthKm, decimals: 6),
        CommandEncoding.number(boxHeightKm, decimals: 6), "km", "ASC", "COUNT", "10",
      ]
    default:
      command += [
        "BYRADIUS", CommandEncoding.number(radiusKm, decimals: 6), "km", "ASC", "COUNT", "10",
      ]
    }
    return command
  }

  func validate() throws(LoadGenError) {
    guard !key.isEmpty else { throw .invalidArgument("--key must not be empty") }
    guard radiusKm > 0, radiusKm.isFinite else { throw .invalidArgument("--radius must be > 0") }
    guard knnRadiusKm > 0, knnRadiusKm.isFinite else {
      throw .invalidArgument("--knn-radius must be > 0")
    }
    guard k >= 1 else { throw .invalidArgument("--k must be at least 1") }
    guard boxWidthKm > 0, boxHeightKm > 0, boxWidthKm.isFinite, boxHeightKm.isFinite else {
      throw .invalidArgument("--box-width and --box-height must be > 0")
    }
  }
}
