import Foundation
import SpatialIndex

/// The cards as held, written at a clean stop and read at the next start in place of every row
/// parsed again (the cards' JSON, share codes, summaries: 11 of a 14 s start over a million
/// cards; docs/BENCHMARKS.md). The store decides whether the file still matches it
/// (`CardStorage.takeHeld`); the file itself says which build and which public URL made it, since
/// a summary holds the URL and the packed fields' layout is this build's.
///
/// Layout, little-endian: the tag, the maker (build and URL), the next id, the reserved URLs'
/// owners, how many cards and external ids, then each card (id, owner, dates, code, slug, primary, packed fields, external id)
/// and each card on the map (id, point, filter bits, summary), each list ended by id 0.
enum CardsHeldFile {
  private static let tag: UInt32 = 0x3148_4143  // "CAH1"

  struct Restored {
    var state: Cards.State
    var placed: [(item: Item, summary: [UInt8])]
  }

  struct Malformed: Error {}

  static func write(_ s: Cards.State, map: CardMap, maker: String) -> [UInt8] {
    var out = Output()
    out.u32(tag)
    out.bytes(Array(maker.utf8))
    out.i64(s.nextCard)
    out.i64(Int64(s.reserved.count))
    for owner in s.reserved.sorted() { out.i64(owner) }
    out.i64(Int64(s.byOwner.total))
    out.i64(Int64(s.externalIds.count))
    s.cards.forEachRecord { id, record, fields in
      out.i64(id)
      out.i64(record.ownerId)
      out.f64(record.createdAt)
      out.f64(record.updatedAt)
      out.u64(record.code)
      out.u32(record.slug)
      out.u8(record.isPrimary ? 1 : 0)
      out.bytes(fields)
      if let external = s.externalIds[id] {
        out.u8(1)
        out.bytes(Array(external.utf8))
      } else {
        out.u8(0)
      }
    }
    out.i64(0)
    map.forEachEntry { item, summary in
      out.i64(Int64(item.id))
      out.f64(item.longitude)
      out.f64(item.latitude)
      out.u32(item.attributes)
      out.bytes(summary)
    }
    out.i64(0)
    return out.bytes
  }

  /// The state `write` wrote, or nil when another build or URL made it; throws on a file
  /// that is not one.
  static func read(_ data: Data, maker: String) throws(Malformed) -> Restored? {
    do {
      return try data.withUnsafeBytes { raw throws(Malformed) -> Restored? in
        var input = Input(raw)
        guard try input.u32() == tag, try String(decoding: input.bytes(), as: UTF8.self) == maker
        else { return nil }
        var s = Cards.State()
        s.nextCard = try input.i64()
        for _ in 0..<(try input.count()) { s.reserved.insert(try input.i64()) }
        // Sized once: grown a card at a time, the tables were most of the reading.
        let cards = try input.count()
        s.cards.reserve(cards)
        let external = try input.count()
        s.byExternalId.reserve(external)
        while case let id = try input.i64(), id != 0 {
          guard id > 0, id < s.nextCard, UInt32(exactly: id) != nil, !s.cards.contains(id) else {
            throw Malformed()
          }
          let owner = try input.i64()
          let createdAt = try input.f64()
          let updatedAt = try input.f64()
          let code = try input.u64()
          let slug = try input.u32()
          let isPrimary = try input.u8() == 1
          s.cards.restore(
            id, ownerId: owner, createdAt: createdAt, updatedAt: updatedAt, code: code,
            slug: slug, isPrimary: isPrimary, fields: try input.bytes())
          s.byOwner.add(id, to: owner)
          if isPrimary { s.withPrimary.insert(owner) }
          if try input.u8() == 1 {
            let external = String(decoding: try input.bytes(), as: UTF8.self)
            s.setExternalId(external, of: id, owner: owner)
          }
        }
        var placed: [(item: Item, summary: [UInt8])] = []
        placed.reserveCapacity(cards)
        while case let id = try input.i64(), id != 0 {
          guard let itemId = ItemID(exactly: id), s.cards.contains(id) else { throw Malformed() }
          let item = Item(
            id: itemId, longitude: try input.f64(), latitude: try input.f64(),
            attributes: try input.u32())
          guard (try? item.validate()) != nil else { throw Malformed() }
          placed.append((item, Array(try input.bytes())))
        }
        guard input.isAtEnd else { throw Malformed() }
        return Restored(state: s, placed: placed)
      }
    } catch let error as Malformed {
      throw error
    } catch {
      throw Malformed()
    }
  }

  private struct Output {
    var bytes: [UInt8] = []

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u32(_ v: UInt32) { Swift.withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func u64(_ v: UInt64) { Swift.withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    mutating func f64(_ v: Double) { u64(v.bitPattern) }

    mutating func bytes(_ v: some Collection<UInt8>) {
      u32(UInt32(v.count))
      bytes += v
    }
  }

  private struct Input {
    let raw: UnsafeRawBufferPointer
    var at = 0

    init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

    var isAtEnd: Bool { at == raw.count }

    private mutating func take<T: FixedWidthInteger>(_: T.Type) throws(Malformed) -> T {
      guard raw.count - at >= MemoryLayout<T>.size else { throw Malformed() }
      defer { at += MemoryLayout<T>.size }
      return T(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: T.self))
    }

    mutating func u8() throws(Malformed) -> UInt8 { try take(UInt8.self) }
    mutating func u32() throws(Malformed) -> UInt32 { try take(UInt32.self) }
    mutating func u64() throws(Malformed) -> UInt64 { try take(UInt64.self) }
    mutating func i64() throws(Malformed) -> Int64 { Int64(bitPattern: try u64()) }
    mutating func f64() throws(Malformed) -> Double { Double(bitPattern: try u64()) }

    /// A list's length, no more than the bytes left could hold.
    mutating func count() throws(Malformed) -> Int {
      let n = try i64()
      guard n >= 0, n <= raw.count - at else { throw Malformed() }
      return Int(n)
    }

    mutating func bytes() throws(Malformed) -> UnsafeRawBufferPointer {
      let n = Int(try u32())
      guard raw.count - at >= n else { throw Malformed() }
      defer { at += n }
      return UnsafeRawBufferPointer(rebasing: raw[at..<at + n])
    }
  }
}
