import Testing

@testable import WebPages

/// The account pages' form reader against bodies a browser (or an attacker) sends.
@Suite("Submitted forms")
struct SubmittedFormTests {
  static func multipart(_ parts: [(String, String, file: Bool)], boundary: String) -> [UInt8] {
    var body = ""
    for (name, value, file) in parts {
      body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\""
      body += file ? "; filename=\"f.bin\"\r\nContent-Type: application/octet-stream" : ""
      body += "\r\n\r\n\(value)\r\n"
    }
    return Array((body + "--\(boundary)--\r\n").utf8)
  }

  @Test(
    "multipart: fields and files come back as sent, even values holding most of the boundary, dashes and CRLFs; an empty file is none; the first of a repeated name counts"
  )
  func multipartFields() throws {
    let boundary = "----formABCabc123"
    let tricky = "a\r\n------formABCabc12 and --\(boundary.dropLast()) end\r\n--"
    let body = Self.multipart(
      [
        ("firstName", "Zoë", false), ("about", tricky, false), ("photo", "\u{0}\u{1}bytes", true),
        ("empty", "", true), ("firstName", "second", false),
      ], boundary: boundary)
    let form = try SubmittedForm.multipart(body, boundary: boundary)
    #expect(form["firstName"] == "Zoë")
    #expect(form["about"] == tricky)
    #expect(form.files["photo"] == Array("\u{0}\u{1}bytes".utf8))
    #expect(form.files["empty"] == nil)
  }

  @Test(
    "bad multipart bodies are refused: no closing delimiter, a part without headers' end, a part without a name, a body of dashes"
  )
  func badMultipart() {
    let boundary = "b0undary"
    let bodies = [
      "--b0undary\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue",
      "--b0undary\r\nContent-Disposition: form-data; name=\"a\"",
      "--b0undary\r\nContent-Type: text/plain\r\n\r\nx\r\n--b0undary--\r\n",
      String(repeating: "-", count: 100_000),
    ]
    for body in bodies {
      #expect(throws: SubmittedForm.Refused.self, "\(body.prefix(40))") {
        try SubmittedForm.multipart(Array(body.utf8), boundary: boundary)
      }
    }
  }

  @Test("urlencoded: + and percent escapes decoded, an empty value kept, a bad escape refused")
  func urlEncoded() throws {
    let form = try SubmittedForm.urlEncoded(Array("a=x+y%21&b=&c=%E2%9C%93".utf8))
    #expect(form["a"] == "x y!" && form["b"] == "" && form["c"] == "✓")
    #expect(throws: SubmittedForm.Refused.self) {
      try SubmittedForm.urlEncoded(Array("a=%ZZ".utf8))
    }
  }
}
