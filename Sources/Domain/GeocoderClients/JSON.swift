import Foundation

/// Untyped JSON, for providers whose fields change type (Nominatim's coordinates are strings,
/// ids numbers) or are absent at will.
enum JSON: Decodable, Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSON])
  case object([String: JSON])

  init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if c.decodeNil() {
      self = .null
    } else if let b = try? c.decode(Bool.self) {
      self = .bool(b)
    } else if let n = try? c.decode(Double.self) {
      self = .number(n)
    } else if let s = try? c.decode(String.self) {
      self = .string(s)
    } else if let a = try? c.decode([JSON].self) {
      self = .array(a)
    } else {
      self = .object(try c.decode([String: JSON].self))
    }
  }

  subscript(key: String) -> JSON? {
    if case .object(let o) = self { return o[key] }
    return nil
  }

  var array: [JSON]? {
    if case .array(let a) = self { return a }
    return nil
  }

  var object: [String: JSON]? {
    if case .object(let o) = self { return o }
    return nil
  }

  /// A string, or a number written as a string without a trailing ".0" for integers.
  var text: String? {
    switch self {
    case .string(let s): return s
    case .number(let n):
      return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
    default: return nil
    }
  }

  /// A number, or a string holding one (Nominatim's "47.14").
  var double: Double? {
    switch self {
    case .number(let n): return n
    case .string(let s): return Double(s)
    default: return nil
    }
  }

  static func parse(_ data: Data, host: String) throws -> JSON {
    do {
      return try JSONDecoder().decode(JSON.self, from: data)
    } catch {
      let start = String(decoding: data.prefix(80), as: UTF8.self)
      throw GeocoderServiceError.badResponse(host: host, reason: "not JSON: \(start)")
    }
  }
}
