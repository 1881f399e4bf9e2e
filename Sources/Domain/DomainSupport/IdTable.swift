import IndexIntrinsics

/// Values by row id, in chunks of 4,096 slots indexed by id: the cards themselves
/// (`HeldCards`), the map's summaries' slots (`CardMap`), the accounts, pins. Ids are handed out
/// in sequence from 1, so the slots are dense, and a value costs its own size: a dictionary of
/// a million cards cost over twice that, its table being at most three quarters full and
/// doubling as it grows (2^21 buckets for 1M), every bucket touched. Chunks, not one array: an
/// array grown by doubling left each of its old buffers to the allocator, resident and unused.
/// A deleted row leaves an empty slot.
public struct IdTable<Value> {
  @usableFromInline static var chunkShift: Int { 12 }
  @usableFromInline var chunks: [[Value?]] = []
  @usableFromInline var held = 0

  // Inlinable, as a module's own generic code is specialized: the map's searches read a slot
  // for every hit.
  @inlinable public init() {}

  /// How many slots hold a value.
  @inlinable public var count: Int { held }

  @inlinable public subscript(id: Int64) -> Value? {
    get {
      guard id > 0 else { return nil }
      let (chunk, slot) = Self.place(id)
      guard chunk < chunks.count, slot < chunks[chunk].count else { return nil }
      return chunks[chunk][slot]
    }
    set {
      guard id > 0 else { return }
      let (chunk, slot) = Self.place(id)
      if chunk >= chunks.count || chunks[chunk].isEmpty {
        guard newValue != nil else { return }
        if chunk >= chunks.count {
          chunks.append(contentsOf: repeatElement([], count: chunk + 1 - chunks.count))
        }
        chunks[chunk] = Array(repeating: nil, count: 1 << Self.chunkShift)
      }
      switch (chunks[chunk][slot] == nil, newValue == nil) {
      case (true, false): held += 1
      case (false, true): held -= 1
      default: break
      }
      chunks[chunk][slot] = newValue
    }
  }

  /// Every value with its id, in the order of the ids.
  @inlinable public func forEachValue(_ body: (Int64, Value) throws -> Void) rethrows {
    for (c, chunk) in chunks.enumerated() {
      for (slot, value) in chunk.enumerated() {
        if let value { try body(Int64(c << Self.chunkShift + slot + 1), value) }
      }
    }
  }

  /// Starts loading `id`'s slot, for a caller about to read several slots at random.
  @inlinable public func prefetch(_ id: Int64) {
    guard id > 0 else { return }
    let (chunk, slot) = Self.place(id)
    guard chunk < chunks.count, slot < chunks[chunk].count else { return }
    chunks[chunk].withUnsafeBufferPointer { cprefetch($0.baseAddress! + slot) }
  }

  @inlinable static func place(_ id: Int64) -> (chunk: Int, slot: Int) {
    let i = Int(id - 1)
    return (i >> chunkShift, i & (1 << chunkShift - 1))
  }
}

extension IdTable: Sendable where Value: Sendable {}
