import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A small number for the calling thread, given on first use: the event-loop threads that run
/// queries each get their own slot in per-set arrays, so they share no lock to find their
/// scratch space. Threads past `count` get nil and use a shared pool instead.
public enum ThreadSlot {
  public static let count = 64
  private static let next = Atomic<Int>(0)
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
  }()

  /// How many slots have been handed out (it may pass `count`). A slot is handed out before
  /// its thread first uses it, with sequentially consistent ordering.
  public static var handedOut: Int { min(count, next.load(ordering: .sequentiallyConsistent)) }

  /// This thread's slot, in 0..<count, or nil when all are taken.
  public static var current: Int? {
    if let stored = pthread_getspecific(key) {
      let slot = Int(bitPattern: stored) - 1
      return slot < count ? slot : nil
    }
    let slot = next.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
    pthread_setspecific(key, UnsafeRawPointer(bitPattern: slot + 1))
    return slot < count ? slot : nil
  }
}

/// A value per thread slot, for scratch space a thread keeps between calls: each thread reads
/// and writes only the value at its own `ThreadSlot`, so none needs a lock.
public final class PerThread<Value>: @unchecked Sendable {
  @usableFromInline let values: UnsafeMutablePointer<Value?>

  public init() {
    values = .allocate(capacity: ThreadSlot.count)
    values.initialize(repeating: nil, count: ThreadSlot.count)
  }

  deinit {
    values.deinitialize(count: ThreadSlot.count)
    values.deallocate()
  }

  /// The value at `slot`, which must be the calling thread's.
  @inlinable
  public subscript(slot: Int) -> Value? {
    get { values[slot] }
    set { values[slot] = newValue }
  }

  /// Takes the value at `slot` (the calling thread's) out, leaving nil: the caller then holds
  /// the only reference to it.
  @inlinable
  public func take(_ slot: Int) -> Value? { values[slot].take() }
}
