#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

struct Country: Sendable {
  let code: String
  let name: String
}

struct Region: Sendable {
  let country: Int
  let code: String
  let name: String
}

/// The parsed data file. The text stays in memory as loaded; a place keeps only what search and
/// reverse need for every candidate (position, population, country, region) and the offsets of
/// its row, whose name and keys are read from the text when needed.
struct GazetteerData: Sendable {
  let text: [UInt8]
  let countryNames: CountryNames
  let regions: [Region]
  /// Folded name or code → regions known by it (`countryNames.keys`: countries).
  let regionKeys: [String: [Int]]
  // Per place, by row number.
  let rowStart: [UInt32]
  let keysStart: [UInt32]
  let lon: [Double]
  let lat: [Double]
  let population: [UInt32]
  let country: [UInt16]
  /// Index into `regions`, or -1 when GeoNames gives no (named) admin1 region.
  let region: [Int32]

  var count: Int { rowStart.count }

  init(text: [UInt8]) throws(GazetteerError) {
    self.text = text
    var reader = LineReader(text: text)
    let countryNames = try CountryNames(&reader)
    let countryByCode = countryNames.byCode
    var regions = [Region]()
    var regionKeys = [String: [Int]]()
    // By the hash of the bytes "CC\tADMIN1", as they stand in a place's row.
    var regionByCode = [UInt64: Int32]()
    let regionCount = try reader.section("regions")
    for _ in 0..<regionCount {
      let f = try reader.fields(4)
      guard let c = countryByCode[f[0]] else { throw reader.error("unknown country \(f[0])") }
      let index = regions.count
      regions.append(Region(country: c, code: f[1], name: f[2]))
      regionByCode[KeyIndex.hash(Array((f[0] + "\t" + f[1]).utf8))] = Int32(index)
      for key in f[3].split(separator: "|") { regionKeys[String(key), default: []].append(index) }
    }
    let countryByBytes = Dictionary(
      uniqueKeysWithValues: countryByCode.map { (Array($0.key.utf8).packed, $0.value) })
    let placeCount = try reader.section("places")
    guard placeCount < KeyIndex.maximumPlaces else { throw reader.error("too many places") }
    var rowStart = [UInt32]()
    var keysStart = [UInt32]()
    var lon = [Double]()
    var lat = [Double]()
    var population = [UInt32]()
    var country = [UInt16]()
    var region = [Int32]()
    rowStart.reserveCapacity(placeCount)
    keysStart.reserveCapacity(placeCount)
    lon.reserveCapacity(placeCount)
    lat.reserveCapacity(placeCount)
    population.reserveCapacity(placeCount)
    country.reserveCapacity(placeCount)
    region.reserveCapacity(placeCount)
    for _ in 0..<placeCount {
      let row = try reader.placeRow()
      guard let c = countryByBytes[row.country] else { throw reader.error("unknown country") }
      guard (-180...180).contains(row.lon), (-90...90).contains(row.lat) else {
        throw reader.error("coordinate out of range")
      }
      rowStart.append(UInt32(row.start))
      keysStart.append(UInt32(row.keys))
      lon.append(row.lon)
      lat.append(row.lat)
      population.append(row.population)
      country.append(UInt16(c))
      region.append(regionByCode[row.region] ?? -1)
    }
    guard reader.atEnd else { throw reader.error("text after the last place") }
    self.countryNames = countryNames
    self.regions = regions
    self.regionKeys = regionKeys
    self.rowStart = rowStart
    self.keysStart = keysStart
    self.lon = lon
    self.lat = lat
    self.population = population
    self.country = country
    self.region = region
  }

  /// The byte range of place `i`'s row, without its newline.
  func rowRange(_ i: Int) -> Range<Int> {
    let end = i + 1 < rowStart.count ? Int(rowStart[i + 1]) - 1 : text.count - 1
    return Int(rowStart[i])..<end
  }

  /// The row's tab-separated fields, as strings (for building a result, not in hot loops).
  func fields(_ i: Int) -> [String] {
    text[rowRange(i)].split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
      .map { String(decoding: $0, as: UTF8.self) }
  }

  /// Where `key` is among place `i`'s search keys: 0 for its primary name, nil if absent.
  func keyPosition(_ key: [UInt8], in i: Int) -> Int? {
    let keys = text[Int(keysStart[i])..<rowRange(i).upperBound]
    var position = 0
    for candidate in keys.split(separator: UInt8(ascii: "|")) {
      if candidate.elementsEqual(key) { return position }
      position += 1
    }
    return nil
  }
}

/// Reads the data file line by line, by byte offsets.
struct LineReader {
  let text: [UInt8]
  var offset = 0
  var line = 0

  init(text: [UInt8]) { self.text = text }

  var atEnd: Bool { offset >= text.count }

  func error(_ reason: String) -> GazetteerError { .malformed(line: line, reason: reason) }

  mutating func nextLine() throws(GazetteerError) -> Range<Int> {
    guard offset < text.count else { throw error("unexpected end of file") }
    let start = offset
    let end = text.withUnsafeBufferPointer { buffer in
      let base = buffer.baseAddress! + start
      if let hit = memchr(base, 0x0A, buffer.count - start) {
        return start + (UnsafeRawPointer(hit) - UnsafeRawPointer(base))
      }
      return buffer.count
    }
    offset = end + 1
    line += 1
    return start..<end
  }

  /// Skips comment lines, then reads "@name count".
  mutating func section(_ name: String) throws(GazetteerError) -> Int {
    var range = try nextLine()
    while text[range].first == UInt8(ascii: "#") { range = try nextLine() }
    let header = String(decoding: text[range], as: UTF8.self).split(separator: " ")
    guard header.count == 2, header[0] == "@" + name, let count = Int(header[1]), count >= 0 else {
      throw error("expected the section @\(name)")
    }
    return count
  }

  mutating func fields(_ count: Int) throws(GazetteerError) -> [String] {
    let range = try nextLine()
    let fields = text[range].split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
    guard fields.count == count else { throw error("expected \(count) fields") }
    return fields.map { String(decoding: $0, as: UTF8.self) }
  }

  struct PlaceRow {
    var start: Int
    /// The country code's two bytes, packed.
    var country: UInt16
    /// The hash of "CC\tADMIN1".
    var region: UInt64
    var population: UInt32
    var lon: Double
    var lat: Double
    var keys: Int
  }

  /// geonameid, name, country, admin1, population, lon, lat, keys: parsed in place, without
  /// allocating (this runs for every place at startup).
  mutating func placeRow() throws(GazetteerError) -> PlaceRow {
    let range = try nextLine()
    let parsed: PlaceRow? = text.withUnsafeBufferPointer { buffer in
      let base = buffer.baseAddress!
      var at = range.lowerBound
      func next() -> Int? {
        guard at < range.upperBound, let hit = memchr(base + at, 0x09, range.upperBound - at)
        else { return nil }
        at = UnsafeRawPointer(hit) - UnsafeRawPointer(base) + 1
        return at - 1
      }
      guard next() != nil, let t1 = next(), let t2 = next(), let t3 = next(), let t4 = next(),
        let t5 = next(), let t6 = next(), t6 + 1 < range.upperBound, t2 - t1 == 3
      else { return nil }
      var population: UInt32 = 0
      for i in (t3 + 1)..<t4 {
        let digit = buffer[i] &- 0x30
        guard digit < 10 else { return nil }
        population = population &* 10 &+ UInt32(digit)
      }
      guard let lon = Self.number(base, t4 + 1, t5), let lat = Self.number(base, t5 + 1, t6)
      else { return nil }
      return PlaceRow(
        start: range.lowerBound, country: UInt16(buffer[t1 + 1]) << 8 | UInt16(buffer[t1 + 2]),
        region: KeyIndex.hash(UnsafeBufferPointer(rebasing: buffer[(t1 + 1)..<t3])),
        population: population, lon: lon, lat: lat, keys: t6 + 1)
    }
    guard let parsed else { throw error("malformed place") }
    return parsed
  }

  private static func number(_ base: UnsafePointer<UInt8>, _ from: Int, _ to: Int) -> Double? {
    let start = UnsafeRawPointer(base + from).assumingMemoryBound(to: CChar.self)
    var end: UnsafeMutablePointer<CChar>? = nil
    let value = strtod(start, &end)
    guard let end, UnsafePointer(end) - start == to - from, value.isFinite else { return nil }
    return value
  }
}

extension Array where Element == UInt8 {
  /// A two-byte country code as one number.
  var packed: UInt16 { count == 2 ? UInt16(self[0]) << 8 | UInt16(self[1]) : 0 }
}
