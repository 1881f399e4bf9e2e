import Foundation
import Keyspace
import SpatialIndex

/// INFO's `index` section (CardAtlas's own): the GEO keys' spatial indexes. Items that found no
/// slot in a tree wait in its overflow, which every search scans, until a rebuild takes them in.
extension InfoReport {
  /// Keys this large are listed one by one: smaller ones rebuild inside the write that needs it,
  /// so they never keep an overflow past an eighth of their size.
  static let listedIndexSize = 4096

  /// Totals over every GEO key, then a line per large key: `index_db<n>_<key>`, the key's bytes
  /// outside `[A-Za-z0-9_.-]` written `%XX`, so the line stays one field.
  func index() -> [(String, String)] {
    state.keyspace.read { dbs in
      var keys = 0
      var overflow = 0
      var rebuilds = 0
      var rebuilding = false
      var lines: [(String, String)] = []
      for db in 0..<Keyspace.databaseCount {
        for (key, set) in dbs[db].sortedSets.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }
        ) {
          let s = set.indexStatistics
          keys += 1
          overflow += s.overflow
          rebuilds += s.rebuilds
          rebuilding = rebuilding || s.rebuilding
          guard s.count >= Self.listedIndexSize else { continue }
          lines.append(
            (
              "index_db\(db)_\(Self.fieldName(key))",
              "members=\(s.count),overflow=\(s.overflow),wear=\(s.wear),rebuilds=\(s.rebuilds),"
                + "rebuilding=\(s.rebuilding ? 1 : 0)"
            ))
        }
      }
      return [
        ("index_keys", String(keys)),
        ("index_overflow", String(overflow)),
        ("index_rebuilds", String(rebuilds)),
        ("index_rebuilding", rebuilding ? "1" : "0"),
      ] + lines
    }
  }

  static func fieldName(_ key: Bytes) -> String {
    var out = ""
    for byte in key {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."),
        UInt8(ascii: "-"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        out += String(format: "%%%02X", byte)
      }
    }
    return out
  }
}
