import Foundation
import Geocoding
import Synchronization

/// A row's geocoding: not needed (no address, or lon/lat given), not started because a stop
/// was requested, or the geocoder's best candidate (nil: no match) or its failure.
enum Geocoded {
  case notNeeded
  case skipped
  case answer(Result<Place?, any Error>)
}

extension Importer {
  /// Geocodes the records' queries, `concurrency` at a time, in row order; each distinct query
  /// once (and once a run, through the cache). After a stop request no new query starts.
  func geocode(_ records: [ImportRecord]) async -> [Geocoded] {
    var found = [Geocoded](repeating: .notNeeded, count: records.count)
    var pending: [GeocodeQuery: [Int]] = [:]
    var order: [GeocodeQuery] = []
    for (i, record) in records.enumerated() where record.problem == nil {
      guard let query = record.query else { continue }
      if let place = cache[query] {
        found[i] = .answer(.success(place))
      } else {
        if pending[query] == nil { order.append(query) }
        pending[query, default: []].append(i)
        found[i] = .skipped
      }
    }
    guard !order.isEmpty else { return found }
    let geocoder = self.geocoder
    await withTaskGroup(of: (Int, Result<Place?, any Error>).self) { group in
      var next = 0
      func start(_ group: inout TaskGroup<(Int, Result<Place?, any Error>)>) {
        guard next < order.count, !stopRequested() else { return }
        let (i, query) = (next, order[next])
        next += 1
        group.addTask {
          do { return (i, .success(try await geocoder.search(query).first)) } catch {
            return (i, .failure(error))
          }
        }
      }
      for _ in 0..<max(1, options.concurrency) { start(&group) }
      while let (i, result) = await group.next() {
        if case .success(let place) = result { cache[order[i]] = place }
        for row in pending[order[i]]! { found[row] = .answer(result) }
        start(&group)
      }
    }
    return found
  }
}

/// Answers already had in this run, so that repeated addresses are geocoded once. Bounded: it
/// is emptied when full, which keeps memory flat on any file.
final class GeocodeCache {
  private var entries: [GeocodeQuery: Place?] = [:]
  private let capacity = 20_000

  subscript(query: GeocodeQuery) -> Place?? {
    get { entries[query] }
    set {
      if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
      entries[query] = newValue ?? nil
    }
  }
}
