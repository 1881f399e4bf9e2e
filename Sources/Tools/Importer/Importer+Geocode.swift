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
  /// once (and once a run, through the cache), and none the geocoder keeps an answer for. After
  /// a stop request no new query starts.
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
    // What the geocoder keeps (its cache) is taken at once; only the rest are asked.
    if let keeper = geocoder as? any KeepsAnswers, !order.isEmpty {
      let kept = await keeper.keptAnswers(order)
      for (query, places) in zip(order, kept) {
        guard let places else { continue }
        cache[query] = places.first
        for row in pending[query]! { found[row] = .answer(.success(places.first)) }
      }
      order = zip(order, kept).compactMap { $1 == nil ? $0 : nil }
    }
    guard !order.isEmpty else { return found }
    let geocoder = self.geocoder
    await withTaskGroup(of: Answer.self) { group in
      var next = 0
      var running = 0
      while true {
        while next < order.count, running < max(1, options.concurrency), !stopRequested() {
          let (i, query) = (next, order[next])
          group.addTask {
            do {
              return Answer(index: i, result: .success(try await geocoder.search(query).first))
            } catch { return Answer(index: i, result: .failure(error)) }
          }
          next += 1
          running += 1
        }
        guard let answer = await group.next() else { break }
        let (i, result) = (answer.index, answer.result)
        running -= 1
        if case .success(let place) = result { cache[order[i]] = place }
        for row in pending[order[i]]! { found[row] = .answer(result) }
      }
    }
    return found
  }
}

/// A query's answer, by its index in the chunk's distinct queries.
struct Answer: Sendable {
  let index: Int
  let result: Result<Place?, any Error>
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
