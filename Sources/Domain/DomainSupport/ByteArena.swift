/// Byte strings held end to end in chunks of 1 MiB, each found by its slot (an offset and a
/// length): a million small arrays cost a header and an allocation each (some 50 bytes beyond
/// their bytes), the arena 8 bytes of slot. Space is handed out in 8-byte granules; a string
/// released leaves its granules for the next string needing as many (a replaced one of the same
/// size stays where it was). Chunks are never moved: one array grown by doubling left each of
/// its old buffers to the allocator, resident and mostly unused (a sixth of the RSS at 300,000
/// cards), and the bytes of a chunk stay where they are while a reply is written from them.
public struct ByteArena {
  public struct Slot: Equatable, Sendable {
    /// In granules, so that 32 bits reach 32 GB.
    @usableFromInline let offset: UInt32
    public let count: UInt32

    @inlinable init(offset: UInt32, count: UInt32) {
      self.offset = offset
      self.count = count
    }

    @inlinable var granules: Int { ByteArena.granules(Int(count)) }
  }

  @usableFromInline static let granule = 8
  @usableFromInline static let chunkGranules = 1 << 17
  /// The longest string held: a chunk's bytes.
  public static let maximumCount = chunkGranules * granule

  @usableFromInline var chunks = Chunks()
  /// Granules handed out: where the next string goes unless it reuses a released run.
  @usableFromInline var end = 0
  /// Released runs by their length in granules: their offsets.
  @usableFromInline var released: [Int: [UInt32]] = [:]

  public init() {}

  /// The bytes the arena has handed out, released runs included.
  public var capacity: Int { end * Self.granule }

  /// The bytes of the runs released and not yet reused.
  public var releasedBytes: Int {
    released.reduce(0) { $0 + $1.key * Self.granule * $1.value.count }
  }

  @inlinable public mutating func store(_ data: some Collection<UInt8>) -> Slot {
    precondition(data.count <= Self.maximumCount, "longer than an arena's chunk")
    let granules = Self.granules(data.count)
    let offset: Int
    if let reused = released[granules]?.popLast() {
      if released[granules]?.isEmpty == true { released[granules] = nil }
      offset = Int(reused)
    } else {
      // A string lies within one chunk.
      if end % Self.chunkGranules + granules > Self.chunkGranules {
        end += Self.chunkGranules - end % Self.chunkGranules
      }
      offset = end
      end += granules
      precondition(end <= UInt32.max, "the byte arena is full")
    }
    write(data, at: offset)
    return Slot(offset: UInt32(offset), count: UInt32(data.count))
  }

  /// `slot`'s bytes replaced by `data`: in place when they take as many granules.
  @inlinable public mutating func replace(_ slot: Slot, with data: some Collection<UInt8>) -> Slot {
    guard slot.granules == Self.granules(data.count) else {
      release(slot)
      return store(data)
    }
    write(data, at: Int(slot.offset))
    return Slot(offset: slot.offset, count: UInt32(data.count))
  }

  @inlinable public mutating func release(_ slot: Slot) {
    guard slot.granules > 0 else { return }
    released[slot.granules, default: []].append(slot.offset)
  }

  @inlinable public func withBytes<R>(_ slot: Slot, _ body: (UnsafeRawBufferPointer) throws -> R)
    rethrows -> R
  {
    try withStorage { try body($0.bytes(slot)) }
  }

  /// `body` given the arena's bytes, to read several slots' in one go.
  @inlinable public func withStorage<R>(_ body: (Storage) throws -> R) rethrows -> R {
    try withExtendedLifetime(chunks) { try body(Storage(chunks: chunks.pointers)) }
  }

  /// The arena's bytes while `withStorage`'s body runs.
  public struct Storage {
    @usableFromInline let chunks: [UnsafeMutableRawPointer]

    @inlinable init(chunks: [UnsafeMutableRawPointer]) { self.chunks = chunks }

    @inlinable public func bytes(_ slot: Slot) -> UnsafeRawBufferPointer {
      let offset = Int(slot.offset)
      return UnsafeRawBufferPointer(
        start: chunks[offset / ByteArena.chunkGranules] + offset % ByteArena.chunkGranules
          * ByteArena.granule,
        count: Int(slot.count))
    }
  }

  @inlinable mutating func write(_ data: some Collection<UInt8>, at offset: Int) {
    // Copied first if another arena value shares the chunks.
    if !isKnownUniquelyReferenced(&chunks) { chunks = chunks.copy() }
    while chunks.pointers.count <= offset / Self.chunkGranules { chunks.add() }
    let start =
      chunks.pointers[offset / Self.chunkGranules] + offset % Self.chunkGranules
      * Self.granule
    UnsafeMutableRawBufferPointer(start: start, count: data.count).copyBytes(from: data)
  }

  @inlinable static func granules(_ count: Int) -> Int { (count + granule - 1) / granule }

  /// The chunks' memory, owned: freed with the last arena value holding it.
  @usableFromInline final class Chunks {
    @usableFromInline private(set) var pointers: [UnsafeMutableRawPointer] = []

    @usableFromInline func add() {
      pointers.append(.allocate(byteCount: ByteArena.maximumCount, alignment: ByteArena.granule))
    }

    @usableFromInline func copy() -> Chunks {
      let copy = Chunks()
      for pointer in pointers {
        copy.add()
        copy.pointers.last!.copyMemory(from: pointer, byteCount: ByteArena.maximumCount)
      }
      return copy
    }

    deinit { for pointer in pointers { pointer.deallocate() } }
  }
}
