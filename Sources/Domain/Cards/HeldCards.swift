import DomainSupport
import Foundation

/// The cards in memory (`Cards.State`), by id, as compact records: the ids, dates and flags in
/// a 48-byte record, the code and slug packed into integers, the fields packed into a byte arena
/// (`PackedFields`, `ByteArena`), and an index of the codes holding only card ids. A card is
/// unpacked when read: held as `Card` values (a box of parsed fields each) and a dictionary of
/// codes, a card cost some 400 bytes beyond its JSON at a million cards, the goal's whole share.
struct HeldCards {
  struct Record {
    let ownerId: Int64
    /// `Date.timeIntervalSinceReferenceDate`, which a date gives back exactly.
    let createdAt: Double
    let updatedAt: Double
    /// The code's ASCII bytes (`packed`).
    let code: UInt64
    let fields: ByteArena.Slot
    let slug: UInt32
    let isPrimary: Bool
  }

  private var records = IdTable<Record>()
  private var fields = ByteArena()
  /// Card ids by their code.
  private var byCode = IdIndex()

  init() {}

  subscript(id: Int64) -> Card? {
    get { records[id].map { card(id, $0) } }
    set {
      let old = records[id]
      guard let card = newValue else {
        if let old {
          fields.release(old.fields)
          removeCode(old.code, id)
          records[id] = nil
        }
        return
      }
      guard let code = PackedASCII.pack(card.code, bytes: 8),
        let slug = PackedASCII.pack(card.slug, bytes: 4).map(UInt32.init),
        UInt32(exactly: id) != nil
      else { preconditionFailure("codes and slugs are the server's: short ASCII") }
      let packed = PackedFields.pack(card.fields)
      let slot = old.map { fields.replace($0.fields, with: packed) } ?? fields.store(packed)
      records[id] = Record(
        ownerId: card.ownerId, createdAt: card.createdAt.timeIntervalSinceReferenceDate,
        updatedAt: card.updatedAt.timeIntervalSinceReferenceDate, code: code, fields: slot,
        slug: slug, isPrimary: card.isPrimary)
      if old?.code != code {
        if let old { removeCode(old.code, id) }
        insertCode(code, id)
      }
    }
  }

  func contains(_ id: Int64) -> Bool { records[id] != nil }

  func owner(of id: Int64) -> Int64? { records[id]?.ownerId }

  /// Every card as held, in the order of the ids, with its packed fields (`CardsHeldFile`).
  func forEachRecord(_ body: (Int64, Record, UnsafeRawBufferPointer) throws -> Void) rethrows {
    try fields.withStorage { storage in
      try records.forEachValue { id, record in try body(id, record, storage.bytes(record.fields)) }
    }
  }

  /// Makes room in the code index for `count` cards at once, before the first.
  mutating func reserve(_ count: Int) { byCode.reserve(count) }

  /// A card as `forEachRecord` gave it, its fields already packed; `id` is new.
  mutating func restore(
    _ id: Int64, ownerId: Int64, createdAt: Double, updatedAt: Double, code: UInt64, slug: UInt32,
    isPrimary: Bool, fields packed: UnsafeRawBufferPointer
  ) {
    records[id] = Record(
      ownerId: ownerId, createdAt: createdAt, updatedAt: updatedAt, code: code,
      fields: fields.store(packed), slug: slug, isPrimary: isPrimary)
    insertCode(code, id)
  }

  /// The card holding `code`.
  func id(code: String) -> Int64? {
    guard let packed = PackedASCII.pack(code, bytes: 8) else { return nil }
    return byCode.first(hash: Self.hash(packed)) { records[$0]?.code == packed }
  }

  /// Whether one of the cards `ids` has `slug`.
  func hasSlug(_ slug: String, among ids: [Int64]) -> Bool {
    guard let packed = PackedASCII.pack(slug, bytes: 4).map(UInt32.init) else { return false }
    return ids.contains { records[$0]?.slug == packed }
  }

  /// One text of the card's fields, the rest left packed (what a filter compares).
  func text(_ key: SparseTexts.Key, of id: Int64) -> String? {
    records[id].flatMap { record in
      fields.withBytes(record.fields) { PackedFields.text(key, in: $0) }
    }
  }

  private func card(_ id: Int64, _ record: Record) -> Card {
    Card(
      id: id, ownerId: record.ownerId, code: PackedASCII.text(record.code),
      slug: PackedASCII.text(UInt64(record.slug)), isPrimary: record.isPrimary,
      fields: fields.withBytes(record.fields, PackedFields.unpack),
      createdAt: Date(timeIntervalSinceReferenceDate: record.createdAt),
      updatedAt: Date(timeIntervalSinceReferenceDate: record.updatedAt))
  }

  // MARK: The code index

  /// Codes are FF1's output (or random): their own bits spread well, unseeded.
  private static func hash(_ code: UInt64) -> Int { Int(truncatingIfNeeded: code) }

  private mutating func insertCode(_ code: UInt64, _ id: Int64) {
    let records = records
    byCode.insert(id, hash: Self.hash(code)) { Self.hash(records[$0]!.code) }
  }

  private mutating func removeCode(_ code: UInt64, _ id: Int64) {
    let records = records
    byCode.remove(id, hash: Self.hash(code)) { Self.hash(records[$0]!.code) }
  }
}
