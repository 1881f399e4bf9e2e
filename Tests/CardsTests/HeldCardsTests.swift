import Accounts
import Datasets
import DomainSupport
import Foundation
import Testing

@testable import Cards

/// The cards as memory holds them: packed fields (`PackedFields`), the byte arena they live in
/// (`ByteArena`), and the records with their code index (`HeldCards`), each against the plain
/// values it stands for, over random cards and random sequences of writes.
@Suite struct HeldCardsTests {
  @Test("packed fields unpack to the same fields, and each text reads alone as it was set")
  func packedFields() {
    var random = SeededGenerator(seed: 24)
    for _ in 0..<2_000 {
      let fields = Self.fields(&random)
      let packed = PackedFields.pack(fields)
      let unpacked = packed.withUnsafeBytes { PackedFields.unpack($0) }
      #expect(unpacked == fields)
      #expect(unpacked.json() == fields.json())
      for key in Self.keys {
        let alone = packed.withUnsafeBytes { PackedFields.text(key, in: $0) }
        #expect(alone == fields.texts[key], "\(key)")
      }
    }
  }

  @Test("a card with every field packs smaller than its JSON")
  func packedIsSmaller() throws {
    let fields = try CardFields.parse(CardFieldsRoundTripTests.everyField, isPro: true)
    #expect(PackedFields.pack(fields).count < fields.json().utf8.count)
  }

  @Test("the arena hands a released run to the next string of as many granules")
  func arenaReuse() {
    var arena = ByteArena()
    let a = arena.store(Array(repeating: 1, count: 20))  // 3 granules
    let b = arena.store(Array(repeating: 2, count: 5))  // 1 granule
    #expect(arena.capacity == 32)
    arena.release(a)
    #expect(arena.releasedBytes == 24)
    // A string of another size does not take it; one of 17 to 24 bytes does.
    let c = arena.store(Array(repeating: 3, count: 8))
    #expect(arena.capacity == 40)
    let d = arena.store(Array(repeating: 4, count: 17))
    #expect(arena.capacity == 40 && arena.releasedBytes == 0)
    // Replaced with as many granules: in place; with more: moved, its run released.
    let e = arena.replace(b, with: [9, 9])
    #expect(arena.capacity == 40)
    let f = arena.replace(c, with: Array(repeating: 7, count: 9))
    #expect(arena.capacity == 56 && arena.releasedBytes == 8)
    #expect(Self.bytes(arena, d) == [UInt8](repeating: 4, count: 17))
    #expect(Self.bytes(arena, e) == [9, 9])
    #expect(Self.bytes(arena, f) == [UInt8](repeating: 7, count: 9))
    #expect(Self.bytes(arena, arena.store([UInt8]())) == [])
  }

  @Test("strings fill chunk after chunk, none across two")
  func arenaChunks() {
    var arena = ByteArena()
    let strings = (0..<3_000).map { i in
      (0..<1_000 + i % 9).map { UInt8(truncatingIfNeeded: i &+ $0) }
    }
    let slots = strings.map { arena.store($0) }
    for (slot, bytes) in zip(slots, strings) { #expect(Self.bytes(arena, slot) == bytes) }
    // 1,008 bytes a string at most: 1,040 to a chunk, the rest of a chunk left unused.
    #expect(arena.capacity > 3 * (1 << 20) / 2)
    // A copy of the arena is a value: writing one leaves the other as it was.
    var copy = arena
    let moved = copy.replace(slots[0], with: [1, 2, 3])
    #expect(Self.bytes(copy, moved) == [1, 2, 3])
    #expect(Self.bytes(arena, slots[0]) == strings[0])
  }

  @Test("random stores, replaces and releases keep every string's bytes")
  func arenaAgainstDictionary() {
    var random = SeededGenerator(seed: 7)
    var arena = ByteArena()
    var held: [Int: (ByteArena.Slot, [UInt8])] = [:]
    for step in 0..<20_000 {
      let key = Int.random(in: 0..<500, using: &random)
      let bytes = (0..<Int.random(in: 0..<70, using: &random)).map { _ in
        UInt8.random(in: 0...255, using: &random)
      }
      if let (slot, _) = held[key] {
        if Bool.random(using: &random) {
          arena.release(slot)
          held[key] = nil
        } else {
          held[key] = (arena.replace(slot, with: bytes), bytes)
        }
      } else {
        held[key] = (arena.store(bytes), bytes)
      }
      if step % 1000 == 0 {
        for (slot, bytes) in held.values { #expect(Self.bytes(arena, slot) == bytes) }
      }
    }
    for (slot, bytes) in held.values { #expect(Self.bytes(arena, slot) == bytes) }
    // Released runs are reused: the arena stays near what is held, not what was ever stored.
    let live = held.values.reduce(0) { $0 + ($1.1.count + 7) / 8 * 8 }
    #expect(arena.capacity - arena.releasedBytes == live)
    #expect(arena.capacity < 3 * live)
  }

  @Test(
    "held cards read back as written, by id and by code, through creations, edits and deletions")
  func heldCardsAgainstDictionary() {
    var random = SeededGenerator(seed: 11)
    var held = HeldCards()
    var expected: [Int64: Card] = [:]
    var nextId: Int64 = 1
    for _ in 0..<6_000 {
      let existing = expected.keys.randomElement(using: &random)
      switch (existing, Int.random(in: 0..<4, using: &random)) {
      case (let id?, 0):
        held[id] = nil
        expected[id] = nil
      case (let id?, 1):
        var card = expected[id]!
        card.fields = Self.fields(&random)
        card.isPrimary.toggle()
        card.updatedAt = Date(timeIntervalSince1970: Double.random(in: 0...2e9, using: &random))
        held[id] = card
        expected[id] = card
      default:
        let card = Card(
          id: nextId, ownerId: Int64.random(in: 1...50, using: &random),
          code: RandomText.draw(8, from: Array("abcdefghjkmnpqrstuvwxyz23456789")),
          slug: Cards.slug(), isPrimary: Bool.random(using: &random),
          fields: Self.fields(&random),
          createdAt: Date(timeIntervalSince1970: Double.random(in: 0...2e9, using: &random)),
          updatedAt: Date(timeIntervalSince1970: Double.random(in: 0...2e9, using: &random)))
        held[nextId] = card
        expected[nextId] = card
        nextId += 1
      }
    }
    for id in 1..<nextId {
      #expect(held[id] == expected[id])
      #expect(held.contains(id) == (expected[id] != nil))
      if let card = expected[id] {
        #expect(held.id(code: card.code) == id)
        #expect(held.hasSlug(card.slug, among: [id]))
        #expect(held.text(.company, of: id) == card.fields.company)
        #expect(held.text(.city, of: id) == card.fields.address?.city)
      } else {
        #expect(held.text(.company, of: id) == nil)
      }
    }
    #expect(held.id(code: "nosuchcd") == nil)
    #expect(held.id(code: "not a code at all") == nil)
    #expect(
      held.hasSlug("zz9", among: Array(1..<nextId))
        == expected.values.contains { $0.slug == "zz9" })
    #expect(!held.hasSlug("zz9 too long", among: Array(1..<nextId)))
  }

  static func bytes(_ arena: ByteArena, _ slot: ByteArena.Slot) -> [UInt8] {
    arena.withBytes(slot) { Array($0) }
  }

  // MARK: Random fields

  static let keys: [SparseTexts.Key] = (0...36).map { SparseTexts.Key(rawValue: $0)! }

  static func fields(_ random: inout SeededGenerator) -> CardFields {
    var fields = CardFields(firstName: text(&random))
    for field in FieldRules.stringFields where Int.random(in: 0..<4, using: &random) == 0 {
      fields[field] = text(&random)
    }
    var address = CardAddress()
    for part in FieldRules.addressFields where Int.random(in: 0..<4, using: &random) == 0 {
      address[keyPath: part.path] = text(&random)
    }
    fields.address = address
    if Bool.random(using: &random) {
      fields.location = CardLocation(
        longitude: Double.random(in: -180...180, using: &random),
        latitude: Double.random(in: -85...85, using: &random),
        source: CardLocation.Source.allCases.randomElement(using: &random)!)
    }
    fields.showOnMap = Bool.random(using: &random)
    fields.webLinks = (0..<Int.random(in: 0...3, using: &random)).map { _ in
      CardWebLink(
        url: Bool.random(using: &random) ? "https://x.example/" + text(&random) : nil,
        displayText: Bool.random(using: &random) ? text(&random) : nil)
    }
    return fields
  }

  /// Short and long texts (lengths over 127 bytes take two bytes), ASCII and not.
  static func text(_ random: inout SeededGenerator) -> String {
    let alphabet = Array("abcXYZ 019.-é漢🙂\n\"\\")
    let count =
      Int.random(in: 0..<4, using: &random) == 0
      ? Int.random(in: 100...300, using: &random) : Int.random(in: 0...12, using: &random)
    return String((0..<count).map { _ in alphabet.randomElement(using: &random)! })
  }
}
