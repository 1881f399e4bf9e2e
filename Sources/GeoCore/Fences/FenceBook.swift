import Geodesy
import SpatialIndex
import Synchronization

/// Standing queries over moving objects: each object's move is checked against the fences
/// whose reach (`FenceShape.reach`) holds its new point, found in an index of those circles as
/// photo pins' circles are, never by scanning every fence; each fence remembers which objects
/// are inside it. Objects are the caller's numbers, fences this book's (`FenceID`).
public final class FenceBook: Sendable {
  public typealias FenceID = UInt32

  private struct Fence {
    let shape: FenceShape
    let detect: FenceDetect
    let repeats: Bool
    var inside: Set<UInt64> = []
  }

  /// What a move asks of a fence.
  private struct Rules {
    let shape: FenceShape
    let detect: FenceDetect
    let repeats: Bool
    init(_ fence: Fence) { (shape, detect, repeats) = (fence.shape, fence.detect, fence.repeats) }
  }

  private struct State: ~Copyable {
    var fences: [Fence?] = []
    var free: [FenceID] = []
    /// The fences each object is inside, by object.
    var insideOf: [UInt64: [FenceID]] = [:]
    /// How many fences detect `cross` (none: a move's path is not looked at).
    var crossing = 0
    let searcher: GeoSearcher
  }

  private let index: GeoIndex
  private let state: Mutex<State>
  public let sphere: Sphere

  public init(sphere: Sphere = .earth) {
    self.sphere = sphere
    index = try! GeoIndex(sphere: sphere)
    state = Mutex(State(searcher: index.makeSearcher()))
  }

  /// Adds a fence; `present` are objects where they are now, those inside becoming its members
  /// without an event. `repeats`: `inside` and `outside` are reported on every move in that
  /// state, not only when the state changes (Tile38's default; its `NODWELL` is false).
  public func add(
    _ shape: FenceShape, detect: FenceDetect, repeats: Bool = true,
    present: [(object: UInt64, at: Coordinate)] = []
  ) -> FenceID {
    let members = Set(
      present.lazy.filter { shape.contains($0.at, sphere: self.sphere) }.map(\.object))
    return state.withLock { s in
      let id = s.free.popLast() ?? FenceID(s.fences.count)
      if Int(id) == s.fences.count { s.fences.append(nil) }
      s.fences[Int(id)] = Fence(shape: shape, detect: detect, repeats: repeats, inside: members)
      for object in members { s.insideOf[object, default: []].append(id) }
      if detect.contains(.cross) { s.crossing += 1 }
      _ = try? index.upsert(
        Item(
          id: id, longitude: shape.reach.center.longitude, latitude: shape.reach.center.latitude,
          radius: Float(shape.reach.radius).nextUp))
      return id
    }
  }

  /// Rebuilds the fences' index tight, and returns when done: after adding many (a start).
  public func compact() { index.rebuildNow() }

  /// Removes a fence and what it knew; false if there was none.
  @discardableResult
  public func remove(_ id: FenceID) -> Bool {
    state.withLock { s in
      guard Int(id) < s.fences.count, let fence = s.fences[Int(id)] else { return false }
      for object in fence.inside {
        s.insideOf[object]?.removeAll { $0 == id }
        if s.insideOf[object]?.isEmpty == true { s.insideOf[object] = nil }
      }
      if fence.detect.contains(.cross) { s.crossing -= 1 }
      s.fences[Int(id)] = nil
      s.free.append(id)
      index.remove(id: id)
      return true
    }
  }

  /// The objects inside a fence now.
  public func members(of id: FenceID) -> Set<UInt64> {
    state.withLock { s in Int(id) < s.fences.count ? s.fences[Int(id)]?.inside ?? [] : [] }
  }

  /// An object moved from `before` to `after` (nil: it was not there, or is gone): the events,
  /// by fence, then in the order enter, inside, exit, outside, cross.
  public func move(_ object: UInt64, from before: Coordinate?, to after: Coordinate?)
    -> [FenceEvent]
  {
    state.withLock { s in
      var events: [FenceEvent] = []
      let was = s.insideOf[object] ?? []
      var now: [FenceID] = []
      if let after {
        // One query finds the fences holding the end and those the path may cross: every point
        // of the path is within half its length of its middle.
        let path =
          s.crossing > 0 ? before.map { (from: $0, half: sphere.distance($0, after) / 2) } : nil
        let center = path.map { sphere.midpoint($0.from, after) } ?? after
        for hit in s.searcher.circlesContaining(
          longitude: center.longitude, latitude: center.latitude, margin: path?.half ?? 0)
        {
          // Its rules, not the fence: a copy would hold its `inside`, and each insert below
          // would then copy the set.
          guard let fence = s.fences[Int(hit.id)].map(Rules.init) else { continue }
          let id = hit.id
          if fence.shape.contains(after, sphere: sphere) {
            now.append(id)
            if !was.contains(id) {
              s.fences[Int(id)]!.inside.insert(object)
              if fence.detect.contains(.enter) { events.append(.init(id, object, .enter)) }
              if fence.detect.contains(.inside) { events.append(.init(id, object, .inside)) }
            } else if fence.repeats, fence.detect.contains(.inside) {
              events.append(.init(id, object, .inside))
            }
            continue
          }
          guard !was.contains(id) else { continue }
          // Outside at both ends. The index's circles are the reaches rounded up to a Float, and
          // widened by the path: the reach decides.
          if fence.repeats, fence.detect.contains(.outside),
            sphere.distance(fence.shape.reach.center, after) <= fence.shape.reach.radius
          {
            events.append(.init(id, object, .outside))
          }
          if let path, fence.detect.contains(.cross),
            fence.shape.meets(pathFrom: path.from, to: after, sphere: sphere)
          {
            events.append(.init(id, object, .cross))
          }
        }
      }
      for id in was where !now.contains(id) {
        guard let fence = s.fences[Int(id)].map(Rules.init) else { continue }
        s.fences[Int(id)]!.inside.remove(object)
        if fence.detect.contains(.exit) { events.append(.init(id, object, .exit)) }
        if fence.detect.contains(.outside) { events.append(.init(id, object, .outside)) }
      }
      s.insideOf[object] = now.isEmpty ? nil : now
      events.sort()
      return events
    }
  }
}

/// The events a fence reports.
public struct FenceDetect: OptionSet, Sendable, Hashable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// It came in.
  public static let enter = FenceDetect(rawValue: 1)
  /// It is in (after each move, or only on coming in: `repeats`).
  public static let inside = FenceDetect(rawValue: 2)
  /// It went out.
  public static let exit = FenceDetect(rawValue: 4)
  /// It is out: on going out, and (`repeats`) after each move ending within the fence's reach.
  public static let outside = FenceDetect(rawValue: 8)
  /// It passed through, both ends outside.
  public static let cross = FenceDetect(rawValue: 16)
  public static let all: FenceDetect = [.enter, .inside, .exit, .outside, .cross]
}

/// What a move did to an object's place in a fence.
public struct FenceEvent: Sendable, Hashable, Comparable {
  public enum Kind: Int, Sendable, Hashable, CaseIterable {
    case enter, inside, exit, outside, cross

    public var name: String {
      switch self {
      case .enter: "enter"
      case .inside: "inside"
      case .exit: "exit"
      case .outside: "outside"
      case .cross: "cross"
      }
    }
  }

  public let fence: FenceBook.FenceID
  public let object: UInt64
  public let kind: Kind

  public init(_ fence: FenceBook.FenceID, _ object: UInt64, _ kind: Kind) {
    self.fence = fence
    self.object = object
    self.kind = kind
  }

  public static func < (a: FenceEvent, b: FenceEvent) -> Bool {
    (a.fence, a.kind.rawValue) < (b.fence, b.kind.rawValue)
  }
}
