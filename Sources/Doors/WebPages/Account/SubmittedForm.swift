import Foundation
import Hummingbird

/// A form a browser submitted: `application/x-www-form-urlencoded`, or `multipart/form-data`
/// when it carries a file. Read up to `limit` bytes and `maxParts` fields; a field's first value
/// counts, as a repeated name is never one of our forms'.
struct SubmittedForm: Sendable {
  var fields: [String: String] = [:]
  /// A file field's bytes, when a file was chosen.
  var files: [String: [UInt8]] = [:]

  static let maxParts = 64

  /// Why a body is not a form we read.
  struct Refused: Error {
    let status: HTTPResponse.Status
    let message: String
  }

  subscript(_ name: String) -> String? { fields[name] }

  /// The field's value, trimmed; nil when absent or blank.
  func text(_ name: String) -> String? {
    guard let value = fields[name]?.trimmingCharacters(in: .whitespacesAndNewlines),
      !value.isEmpty
    else { return nil }
    return value
  }

  static func read(_ request: Request, limit: Int) async throws(Refused) -> SubmittedForm {
    let tooLarge = Refused(status: .contentTooLarge, message: "the form is larger than allowed")
    if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
      throw tooLarge
    }
    var request = request
    let body: [UInt8]
    do {
      body = Array(try await request.collectBody(upTo: limit).readableBytesView)
    } catch {
      throw tooLarge
    }
    let type = request.headers[.contentType] ?? ""
    let media = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) }
    switch media?.lowercased() {
    case "application/x-www-form-urlencoded": return try urlEncoded(body)
    case "multipart/form-data":
      guard let boundary = parameter("boundary", in: type), !boundary.isEmpty else {
        throw Refused(status: .badRequest, message: "the form has no boundary")
      }
      return try multipart(body, boundary: boundary)
    default:
      throw Refused(status: .unsupportedMediaType, message: "not a form")
    }
  }

  /// `a=1&b=x+y%21`.
  static func urlEncoded(_ body: [UInt8]) throws(Refused) -> SubmittedForm {
    var form = SubmittedForm()
    let pairs = body.split(separator: UInt8(ascii: "&"))
    guard pairs.count <= maxParts else { throw tooMany }
    for pair in pairs {
      let parts = pair.split(
        separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = decode(parts[0]) else { throw malformed }
      guard let value = decode(parts.count > 1 ? parts[1] : []) else { throw malformed }
      if form.fields[name] == nil { form.fields[name] = value }
    }
    return form
  }

  private static func decode(_ bytes: ArraySlice<UInt8>) -> String? {
    let text = String(
      decoding: bytes.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 },
      as: UTF8.self)
    return text.removingPercentEncoding
  }

  /// RFC 7578: parts between `--boundary` lines, each with a `Content-Disposition: form-data;
  /// name="…"` header (and a `filename` for a file).
  static func multipart(_ body: [UInt8], boundary: String) throws(Refused) -> SubmittedForm {
    let delimiter = Array("--\(boundary)".utf8)
    var form = SubmittedForm()
    guard var at = find(delimiter, in: body, from: 0) else { throw malformed }
    var parts = 0
    while true {
      at += delimiter.count
      // `--` after a delimiter ends the body.
      if body[at...].starts(with: Array("--".utf8)) { return form }
      guard body[at...].starts(with: crlf) else { throw malformed }
      at += 2
      guard let headersEnd = find(crlf + crlf, in: body, from: at),
        let next = find(crlf + delimiter, in: body, from: headersEnd + 4)
      else { throw malformed }
      parts += 1
      guard parts <= maxParts else { throw tooMany }
      let headers = String(decoding: body[at..<headersEnd], as: UTF8.self)
      let content = Array(body[(headersEnd + 4)..<next])
      guard
        let disposition = headers.split(separator: "\r\n").first(where: {
          $0.lowercased().hasPrefix("content-disposition:")
        }), let name = parameter("name", in: String(disposition))
      else { throw malformed }
      if parameter("filename", in: String(disposition)) != nil {
        if !content.isEmpty, form.files[name] == nil { form.files[name] = content }
      } else if form.fields[name] == nil {
        form.fields[name] = String(decoding: content, as: UTF8.self)
      }
      at = next + 2
    }
  }

  /// A header's `name=value` or `name="value"` parameter.
  static func parameter(_ name: String, in header: String) -> String? {
    for piece in header.split(separator: ";").dropFirst() {
      let pair = piece.split(separator: "=", maxSplits: 1)
      guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == name
      else { continue }
      var value = pair[1].trimmingCharacters(in: .whitespaces)
      if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
        value = String(value.dropFirst().dropLast())
      }
      return value
    }
    return nil
  }

  private static let crlf = Array("\r\n".utf8)
  private static let malformed = Refused(status: .badRequest, message: "the form is malformed")
  private static let tooMany = Refused(status: .badRequest, message: "the form has too many fields")

  /// Where `needle` first is at or after `start`, by Knuth–Morris–Pratt: linear in the body
  /// whatever its bytes (a naive search on a body of dashes would compare the boundary at
  /// every byte).
  private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
    guard !needle.isEmpty, start < haystack.count else { return nil }
    // fallback[k]: the length of needle[0...k]'s longest proper border.
    var fallback = [Int](repeating: 0, count: needle.count)
    var border = 0
    for k in needle.indices.dropFirst() {
      while border > 0, needle[k] != needle[border] { border = fallback[border - 1] }
      if needle[k] == needle[border] { border += 1 }
      fallback[k] = border
    }
    var matched = 0
    for i in start..<haystack.count {
      while matched > 0, haystack[i] != needle[matched] { matched = fallback[matched - 1] }
      if haystack[i] == needle[matched] { matched += 1 }
      if matched == needle.count { return i - needle.count + 1 }
    }
    return nil
  }
}
