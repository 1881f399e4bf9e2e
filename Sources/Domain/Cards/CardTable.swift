import IndexIntrinsics

/// Values by card id, in chunks of 4,096 slots indexed by id: the cards themselves
/// (`HeldCards`), the map's summaries' slots (`CardMap`), and other modules' records by id
/// (pins). Ids are handed out in sequence from 1, so the slots are dense, and a value costs its
/// own size: a dictionary of cards cost over twice that, its table being at most three quarters
/// full and doubling as it grows, every bucket touched. Chunks, not one array: an array grown by
/// doubling left each of its old buffers to the allocator, resident and unused. A deleted card
/// leaves an empty slot.
public struct CardTable<Value> {
  private static var chunkShift: Int { 12 }
  private var chunks: [[Value?]] = []

  public init() {}

  public subscript(id: Int64) -> Value? {
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
      chunks[chunk][slot] = newValue
    }
  }

  /// Every value with its id, in the order of the ids.
  func forEachValue(_ body: (Int64, Value) throws -> Void) rethrows {
    for (c, chunk) in chunks.enumerated() {
      for (slot, value) in chunk.enumerated() {
        if let value { try body(Int64(c << Self.chunkShift + slot + 1), value) }
      }
    }
  }

  /// Starts loading `id`'s slot, for a caller about to read several slots at random.
  func prefetch(_ id: Int64) {
    guard id > 0 else { return }
    let (chunk, slot) = Self.place(id)
    guard chunk < chunks.count, slot < chunks[chunk].count else { return }
    chunks[chunk].withUnsafeBufferPointer { cprefetch($0.baseAddress! + slot) }
  }

  private static func place(_ id: Int64) -> (chunk: Int, slot: Int) {
    let i = Int(id - 1)
    return (i >> chunkShift, i & (1 << chunkShift - 1))
  }
}
