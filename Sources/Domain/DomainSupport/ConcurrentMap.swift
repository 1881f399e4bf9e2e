import Dispatch
import Foundation
import Synchronization

extension Array where Element: Sendable {
  /// `transform` of each element, in order, computed on every core: for a start's bulk work
  /// (a million cards parsed), which one thread would do alone. The first error thrown (by
  /// position) is rethrown.
  public func concurrentMap<T: Sendable>(_ transform: @Sendable (Element) throws -> T) throws
    -> [T]
  {
    let slices = Swift.min(count, ProcessInfo.processInfo.activeProcessorCount * 2)
    guard slices > 1 else { return try map(transform) }
    // In a class: a Mutex captured by the workers' closure is an access to the caller's local,
    // which ThreadSanitizer counts as a write from each worker.
    let results = Slices<T>()
    DispatchQueue.concurrentPerform(iterations: slices) { slice in
      let range = (count * slice / slices)..<(count * (slice + 1) / slices)
      let result = Result { try self[range].map(transform) }
      results.all.withLock { $0[slice] = result }
    }
    return try results.all.withLock { all in try (0..<slices).flatMap { try all[$0]!.get() } }
  }
}

/// `concurrentMap`'s slices' results, by position.
private final class Slices<T: Sendable>: Sendable {
  let all = Mutex<[Int: Result<[T], any Error>]>([:])
}
