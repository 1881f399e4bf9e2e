import IndexIntrinsics
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A readers-writer lock whose readers count themselves in their own thread's slot, each on its
/// own cache lines: the keyspace's and the indexes' lock, which every search takes twice. With
/// one shared count the event-loop threads wrote the same cache line twice per lock and stole it
/// from each other; here a reader writes only its own line and reads a writer flag that changes
/// only when someone writes. Writers pay instead: they raise the flag, then wait until every
/// slot that has been handed out is empty. It prefers writers: a reader waits at most for the
/// writes queued ahead of it.
///
/// Both sides hold it for microseconds (a query, or one in-place change), so it spins instead
/// of sleeping: measured with pthread's rwlock, a query running beside a writer went from 6 µs
/// to 24 µs, nearly all of it futex wake-ups.
public final class SlottedRWLock: @unchecked Sendable {
  /// Where readers count themselves, held by value: taking the read lock through it touches
  /// no reference count (a shared object's count is itself a cache line both threads write).
  public let readers: Readers
  /// Orders writers among themselves.
  private let writers = Mutex<Void>(())

  public init() { readers = Readers() }

  deinit { readers.memory.deallocate() }

  @inline(__always)
  public func withReadLock<T>(_ body: () throws -> T) rethrows -> T {
    try readers.withReadLock(body)
  }

  public func withWriteLock<T>(_ body: () throws -> T) rethrows -> T {
    try writers.withLock { _ in
      let flag = readers.flag
      // For ThreadSanitizer only (it cannot see the mutex's ordering); nothing otherwise.
      cardatlas_tsan_acquire(readers.memory)
      defer { cardatlas_tsan_release(readers.memory) }
      flag.pointee.store(1, ordering: .sequentiallyConsistent)
      defer { flag.pointee.store(0, ordering: .releasing) }
      // A thread given its slot after this read cannot have counted itself in before the flag
      // went up, so it will see the flag.
      let used = ThreadSlot.handedOut
      var spins = 0
      // Sequentially consistent, as the reader's count and flag check are: an acquiring load
      // could, in the memory model, still read a count from before a reader that then missed
      // the flag. (The same instruction on x86 and arm64.)
      func waitUntilEmpty(_ slot: Int) {
        while readers.count(slot).pointee.load(ordering: .sequentiallyConsistent) != 0 {
          Self.pause(&spins)
        }
      }
      for slot in 0..<used { waitUntilEmpty(slot) }
      waitUntilEmpty(Readers.sharedSlot)
      return try body()
    }
  }

  /// The counts, 128 bytes apart (the adjacent-line prefetcher pairs 64-byte lines): one per
  /// `ThreadSlot`, one shared by the threads that have none, then the writer flag (1 while a
  /// writer holds the lock or waits for it), each on lines of its own.
  public struct Readers: @unchecked Sendable {
    let memory: UnsafeMutableRawPointer
    private static let stride = 128
    static let sharedSlot = ThreadSlot.count

    init() {
      memory = .allocate(byteCount: (ThreadSlot.count + 2) * Self.stride, alignment: Self.stride)
      for slot in 0...ThreadSlot.count + 1 {
        (memory + slot * Self.stride).initializeMemory(as: Atomic<Int>.self, to: Atomic(0))
      }
    }

    @inline(__always)
    func count(_ slot: Int) -> UnsafeMutablePointer<Atomic<Int>> {
      (memory + slot * Self.stride).assumingMemoryBound(to: Atomic<Int>.self)
    }

    var flag: UnsafeMutablePointer<Atomic<Int>> { count(ThreadSlot.count + 1) }

    /// Counts the reader in, then checks for a writer; a writer raises its flag, then checks the
    /// counts. With both sequentially consistent, at least one of them sees the other.
    @inline(__always)
    public func withReadLock<T>(_ body: () throws -> T) rethrows -> T {
      let slot = count(ThreadSlot.current ?? Self.sharedSlot)
      let writing = flag
      var spins = 0
      while true {
        slot.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
        if writing.pointee.load(ordering: .sequentiallyConsistent) == 0 { break }
        slot.pointee.wrappingSubtract(1, ordering: .releasing)
        while writing.pointee.load(ordering: .relaxed) != 0 { SlottedRWLock.pause(&spins) }
      }
      defer { slot.pointee.wrappingSubtract(1, ordering: .releasing) }
      return try body()
    }
  }

  /// One wait of a spinning loop: a pause for the first few thousand, then a yield of the CPU, in
  /// case the thread waited for has been descheduled.
  @inline(__always)
  static func pause(_ spins: inout Int) {
    spins += 1
    if spins < 4000 {
      cpu_relax()
    } else {
      sched_yield()
    }
  }
}
