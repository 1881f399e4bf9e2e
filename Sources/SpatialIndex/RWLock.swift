#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A readers-writer lock that prefers writers: many queries run at once, and a writer waits only
/// for the queries already running (microseconds), never for a stream of new ones.
final class RWLock: @unchecked Sendable {
  private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)

  init() {
    #if canImport(Glibc)
      var attributes = pthread_rwlockattr_t()
      pthread_rwlockattr_init(&attributes)
      pthread_rwlockattr_setkind_np(
        &attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
      pthread_rwlock_init(lock, &attributes)
      pthread_rwlockattr_destroy(&attributes)
    #else
      pthread_rwlock_init(lock, nil)
    #endif
  }

  deinit {
    pthread_rwlock_destroy(lock)
    lock.deallocate()
  }

  /// For query loops that must not go through a closure; pair with `unlock()`.
  @inline(__always)
  func lockForReading() { pthread_rwlock_rdlock(lock) }

  @inline(__always)
  func unlock() { pthread_rwlock_unlock(lock) }

  @inline(__always)
  func withReadLock<T>(_ body: () throws -> T) rethrows -> T {
    pthread_rwlock_rdlock(lock)
    defer { pthread_rwlock_unlock(lock) }
    return try body()
  }

  @inline(__always)
  func withWriteLock<T>(_ body: () throws -> T) rethrows -> T {
    pthread_rwlock_wrlock(lock)
    defer { pthread_rwlock_unlock(lock) }
    return try body()
  }
}
