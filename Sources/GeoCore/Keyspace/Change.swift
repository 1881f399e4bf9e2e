/// A key, member or string value: Redis's are binary-safe byte strings.
public typealias Bytes = [UInt8]

/// One durable effect of a write, in the order the write made it. The store applies the changes
/// of one command in one transaction (a crash leaves all of them or none), and `Keyspace.apply`
/// replays them when the store is loaded.
public enum Change: Sendable, Hashable {
  /// A member of a GEO key (a sorted set) added or moved: its score, and the position Redis
  /// decodes from it. GEOADD's scores are 52-bit geohashes (whole numbers below 2^54, exact in a
  /// Double); GEOSEARCHSTORE's STOREDIST stores distances as scores instead, as Redis does.
  case geoUpsert(
    db: Int, key: Bytes, member: Bytes, score: Double, longitude: Double, latitude: Double)
  case geoRemove(db: Int, key: Bytes, member: Bytes)
  /// A string key set, replacing whatever the key held.
  case setString(db: Int, key: Bytes, value: Bytes)
  case deleteKey(db: Int, key: Bytes)
  case flushDatabase(db: Int)
  case flushAll
}
