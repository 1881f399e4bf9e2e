import Foundation

/// Real decoders and checkers for image bytes, run as programs on a temporary file: zbarimg
/// (zbar-tools) reads QR codes, pngcheck checks a PNG, djpeg (libjpeg-turbo-progs) decodes a
/// JPEG, rsvg-convert (librsvg2-bin) renders SVG, python3 parses XML and PNG data.
public enum ImageTools {
  public struct Failed: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
  }

  /// The texts zbarimg reads from the image, one per symbol found (none: empty).
  public static func qrTexts(_ bytes: [UInt8], ext: String) throws -> [String] {
    let (output, status) = try withFile(bytes, ext: ext) { path in
      // Standard output only: zbarimg's ImageMagick also writes D-Bus complaints to stderr.
      try standardOutput(of: "zbarimg", ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", path])
    }
    // 4: no symbol found.
    guard status == 0 || status == 4 else {
      throw Failed(description: "zbarimg exited \(status): \(output)")
    }
    return output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
  }

  /// pngcheck's verdict (verbose) and whether it found the file valid.
  public static func pngcheck(_ bytes: [UInt8]) throws -> (output: String, ok: Bool) {
    let (output, status) = try withFile(bytes, ext: "png") {
      try RedisProcess.run("pngcheck", ["-v", $0])
    }
    return (output, status == 0)
  }

  /// The JPEG decoded by djpeg: its gray pixels, row by row (nil: not a decodable gray JPEG).
  public static func decodeJPEG(_ bytes: [UInt8]) throws -> (
    width: Int, height: Int, pixels: [UInt8]
  )? {
    let out = temporaryPath("pgm")
    defer { try? FileManager.default.removeItem(atPath: out) }
    let (_, status) = try withFile(bytes, ext: "jpg") { path in
      try RedisProcess.run("djpeg", ["-pnm", "-outfile", out, path])
    }
    guard status == 0, let data = FileManager.default.contents(atPath: out) else { return nil }
    // A binary PGM: "P5", width, height, maximum, each followed by one whitespace byte.
    var fields: [String] = []
    var field = ""
    var i = data.startIndex
    while fields.count < 4, i < data.endIndex {
      let byte = data[i]
      i += 1
      if byte == 0x20 || byte == 0x0A {
        if !field.isEmpty { fields.append(field) }
        field = ""
      } else {
        field.append(Character(UnicodeScalar(byte)))
      }
    }
    guard fields.count == 4, fields[0] == "P5", let width = Int(fields[1]),
      let height = Int(fields[2]), data.endIndex - i == width * height
    else { return nil }
    return (width, height, [UInt8](data[i...]))
  }

  /// The SVG rendered at its own size to PNG by rsvg-convert, over white (a transparent
  /// background would otherwise stay transparent black, which zbarimg reads as dark).
  public static func svgToPNG(_ bytes: [UInt8]) throws -> [UInt8] {
    let out = temporaryPath("png")
    defer { try? FileManager.default.removeItem(atPath: out) }
    let (output, status) = try withFile(bytes, ext: "svg") { path in
      try RedisProcess.run(
        "rsvg-convert", ["--format", "png", "--background-color", "white", "--output", out, path])
    }
    guard status == 0, let data = FileManager.default.contents(atPath: out) else {
      throw Failed(description: "rsvg-convert exited \(status): \(output)")
    }
    return [UInt8](data)
  }

  /// Runs `python3 -c script path` on the bytes; its output and status.
  public static func python(_ script: String, _ bytes: [UInt8], ext: String) throws -> (
    String, Int32
  ) {
    try withFile(bytes, ext: ext) { try RedisProcess.run("python3", ["-c", script, $0]) }
  }

  static func withFile<T>(_ bytes: [UInt8], ext: String, _ body: (String) throws -> T) throws -> T {
    let path = temporaryPath(ext)
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
      throw Failed(description: "cannot write \(path)")
    }
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
  }

  /// A program's standard output (standard error dropped) and exit status.
  static func standardOutput(of name: String, _ arguments: [String]) throws -> (String, Int32) {
    guard let executable = RedisProcess.executable(name) else {
      throw Failed(description: "\(name) is not installed (scripts/install-deps.sh)")
    }
    let process = ChildProcess()
    process.executableURL = executable
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: data, as: UTF8.self), process.terminationStatus)
  }

  static func temporaryPath(_ ext: String) -> String {
    FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-image-\(UUID().uuidString).\(ext)").path
  }
}
