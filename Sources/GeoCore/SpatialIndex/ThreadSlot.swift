import IndexIntrinsics
import Synchronization

/// A small number for the calling thread, given on first use: the event-loop threads that run
/// queries each get their own slot in per-set arrays, so they share no lock to find their
/// scratch space. Threads past `count` get nil and use a shared pool instead.
public enum ThreadSlot {
  public static let count = 64
  private static let next = Atomic<Int>(0)

  /// How many slots have been handed out (it may pass `count`). A slot is handed out before
  /// its thread first uses it, with sequentially consistent ordering.
  public static var handedOut: Int { min(count, next.load(ordering: .sequentiallyConsistent)) }

  /// This thread's slot, in 0..<count, or nil when all are taken.
  @inline(__always)
  public static var current: Int? {
    let stored = thread_slot_get()
    let slot = stored != 0 ? stored - 1 : assign()
    return slot < count ? slot : nil
  }

  /// Hands this thread the next slot: once per thread, so kept out of `current`'s inlined path.
  @inline(never)
  private static func assign() -> Int {
    let slot = next.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
    thread_slot_set(slot + 1)
    return slot
  }
}

/// A value per thread slot, for scratch space a thread keeps between calls: each thread reads
/// and writes only the value at its own `ThreadSlot`, so none needs a lock.
///
/// Values a thread rewrites on every use are kept `padded`, 128 bytes apart: side by side, two
/// threads' values would share a cache line, and each write would take it from the other.
public final class PerThread<Value>: @unchecked Sendable {
  @usableFromInline let values: UnsafeMutableRawPointer
  @usableFromInline let stride: Int

  public init(padded: Bool = false) {
    stride =
      padded ? max(128, MemoryLayout<Value?>.stride) : MemoryLayout<Value?>.stride
    values = .allocate(byteCount: ThreadSlot.count * stride, alignment: 128)
    for slot in 0..<ThreadSlot.count { value(slot).initialize(to: nil) }
  }

  deinit {
    for slot in 0..<ThreadSlot.count { value(slot).deinitialize(count: 1) }
    values.deallocate()
  }

  @inlinable
  func value(_ slot: Int) -> UnsafeMutablePointer<Value?> {
    (values + slot * stride).assumingMemoryBound(to: Value?.self)
  }

  /// The value at `slot`, which must be the calling thread's.
  @inlinable
  public subscript(slot: Int) -> Value? {
    get { value(slot).pointee }
    set { value(slot).pointee = newValue }
  }

  /// Takes the value at `slot` (the calling thread's) out, leaving nil: the caller then holds
  /// the only reference to it.
  @inlinable
  public func take(_ slot: Int) -> Value? { value(slot).pointee.take() }
}
