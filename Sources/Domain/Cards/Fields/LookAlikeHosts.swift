/// Hosts that pass for others (homographs): `https://аpple.com/` with a Cyrillic `а` reads as
/// Apple's. As browsers' IDN rules do, a host label may not mix the Latin, Cyrillic and Greek
/// scripts, and a label of an ASCII top-level domain may not be spelt wholly in Cyrillic or
/// Greek letters that look Latin (`аррӏе.com`).
enum LookAlikeHosts {
  private enum Script { case latin, cyrillic, greek }

  private static func script(_ scalar: Unicode.Scalar) -> Script? {
    switch scalar.value {
    case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F, 0x1E00...0x1EFF: .latin
    case 0x400...0x52F, 0x1C80...0x1C8F, 0x2DE0...0x2DFF, 0xA640...0xA69F: .cyrillic
    case 0x370...0x3FF, 0x1F00...0x1FFF: .greek
    default: nil
    }
  }

  /// Cyrillic and Greek letters that look like Latin ones.
  private static let latinLookAlikes: Set<Unicode.Scalar> = Set(
    "аеорсухіјѕԁӏһԛԝүвкмнтАВЕКМНОРСТХІЈЅαεικνορτυχΑΒΕΖΗΙΚΜΝΟΡΤΥΧ".unicodeScalars)

  /// Whether `host` (its labels split at dots) may pass for another host.
  static func isDeceptive(_ host: Substring) -> Bool {
    let labels = host.split(separator: ".")
    let asciiTopLevel = labels.last?.allSatisfy(\.isASCII) ?? true
    for label in labels {
      let scripts = Set(label.unicodeScalars.compactMap(script))
      if scripts.count > 1 { return true }
      if asciiTopLevel, scripts == [.cyrillic] || scripts == [.greek],
        label.unicodeScalars.filter({ script($0) != nil }).allSatisfy(latinLookAlikes.contains)
      {
        return true
      }
    }
    return false
  }
}
