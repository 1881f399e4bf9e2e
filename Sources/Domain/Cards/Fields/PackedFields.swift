/// A card's fields as the cards in memory hold them (`HeldCards`): compact bytes, not a
/// `CardFields` value (a box, an array of texts and their headers, some 200 bytes a card beyond
/// the texts themselves), unpacked when a whole card is read. A filter reads one text without
/// unpacking the rest (`text(_:in:)`).
///
/// The layout: a flags byte (`showOnMap`, a location and its source, links), 5 bytes of the
/// texts' presence mask (`SparseTexts.present`), the location's longitude and latitude (8 bytes
/// each) when there is one, `firstName`, the texts present in key order, then the web links
/// (their count, and each a byte saying which of its two texts follow). A text is its UTF-8
/// length (LEB128) and its bytes.
enum PackedFields {
  private static let showsOnMap: UInt8 = 1
  private static let located: UInt8 = 2
  private static let linked: UInt8 = 4
  /// The location's source, as its index in `allCases`, in bits 3 and 4.
  private static let sourceShift: UInt8 = 3
  private static let maskBytes = 5

  static func pack(_ fields: CardFields) -> [UInt8] {
    var out: [UInt8] = []
    var flags: UInt8 = fields.showOnMap ? showsOnMap : 0
    if let location = fields.location {
      let source = CardLocation.Source.allCases.firstIndex(of: location.source)!
      flags |= located | UInt8(source) << sourceShift
    }
    if !fields.webLinks.isEmpty { flags |= linked }
    out.append(flags)
    for i in 0..<maskBytes {
      out.append(UInt8(truncatingIfNeeded: fields.texts.present >> (8 * i)))
    }
    if let location = fields.location {
      append(location.longitude.bitPattern, to: &out)
      append(location.latitude.bitPattern, to: &out)
    }
    append(fields.firstName, to: &out)
    for value in fields.texts.values { append(value, to: &out) }
    if !fields.webLinks.isEmpty {
      appendLength(fields.webLinks.count, to: &out)
      for link in fields.webLinks {
        out.append((link.url == nil ? 0 : 1) | (link.displayText == nil ? 0 : 2))
        if let url = link.url { append(url, to: &out) }
        if let text = link.displayText { append(text, to: &out) }
      }
    }
    return out
  }

  static func unpack(_ bytes: UnsafeRawBufferPointer) -> CardFields {
    var reader = Reader(bytes: bytes)
    let flags = reader.byte()
    let present = reader.mask()
    let location = flags & located == 0 ? nil : reader.location(flags)
    let firstName = reader.text()
    let values = (0..<present.nonzeroBitCount).map { _ in reader.text() }
    var links: [CardWebLink] = []
    if flags & linked != 0 {
      links = (0..<reader.length()).map { _ in
        let which = reader.byte()
        let url = which & 1 == 0 ? nil : reader.text()
        return CardWebLink(url: url, displayText: which & 2 == 0 ? nil : reader.text())
      }
    }
    return CardFields(
      firstName: firstName, texts: SparseTexts(present: present, values: values),
      location: location, showOnMap: flags & showsOnMap != 0, webLinks: links)
  }

  /// One text of the packed fields, the others skipped.
  static func text(_ key: SparseTexts.Key, in bytes: UnsafeRawBufferPointer) -> String? {
    var reader = Reader(bytes: bytes)
    let flags = reader.byte()
    let present = reader.mask()
    let bit: UInt64 = 1 << key.rawValue
    guard present & bit != 0 else { return nil }
    if flags & located != 0 { reader.at += 16 }
    reader.skipText()  // firstName
    for _ in 0..<(present & (bit - 1)).nonzeroBitCount { reader.skipText() }
    return reader.text()
  }

  private static func append(_ value: UInt64, to out: inout [UInt8]) {
    for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: value >> (8 * i))) }
  }

  private static func append(_ text: String, to out: inout [UInt8]) {
    appendLength(text.utf8.count, to: &out)
    out.append(contentsOf: text.utf8)
  }

  private static func appendLength(_ length: Int, to out: inout [UInt8]) {
    var n = UInt(length)
    while n >= 0x80 {
      out.append(UInt8(n & 0x7F) | 0x80)
      n >>= 7
    }
    out.append(UInt8(n))
  }

  private struct Reader {
    let bytes: UnsafeRawBufferPointer
    var at = 0

    mutating func byte() -> UInt8 {
      defer { at += 1 }
      return bytes[at]
    }

    mutating func mask() -> UInt64 {
      (0..<PackedFields.maskBytes).reduce(0) { $0 | UInt64(byte()) << (8 * $1) }
    }

    mutating func word() -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(byte()) << (8 * $1) } }

    mutating func location(_ flags: UInt8) -> CardLocation {
      let longitude = Double(bitPattern: word())
      let latitude = Double(bitPattern: word())
      let source = CardLocation.Source.allCases[Int(flags >> PackedFields.sourceShift & 3)]
      return CardLocation(longitude: longitude, latitude: latitude, source: source)
    }

    mutating func length() -> Int {
      var n = 0
      var shift = 0
      while true {
        let b = byte()
        n |= Int(b & 0x7F) << shift
        if b < 0x80 { return n }
        shift += 7
      }
    }

    mutating func text() -> String {
      let count = length()
      defer { at += count }
      return String(
        decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<at + count]), as: UTF8.self)
    }

    mutating func skipText() { at += length() }
  }
}
