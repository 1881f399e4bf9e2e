import CZlib

/// Inflates a whole gzip member held in memory.
enum Gunzip {
  static func inflate(_ compressed: [UInt8]) throws(GazetteerError) -> [UInt8] {
    guard compressed.count >= 18 else { throw .malformed(line: 0, reason: "not a gzip file") }
    // The trailer's ISIZE: the uncompressed size modulo 2^32, a good first capacity.
    let n = compressed.count
    let isize = compressed[(n - 4)..<n].reversed().reduce(0) { $0 << 8 | Int($1) }
    var output = [UInt8](repeating: 0, count: max(isize, 1 << 16))
    var stream = z_stream()
    // 15 + 16: a 32 KB window and a gzip header and trailer.
    guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
    else { throw .malformed(line: 0, reason: "zlib did not start") }
    defer { inflateEnd(&stream) }
    var produced = 0
    var status = Z_OK
    compressed.withUnsafeBufferPointer { input in
      stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
      stream.avail_in = UInt32(input.count)
      while status == Z_OK {
        if produced == output.count {
          output.append(contentsOf: repeatElement(0, count: output.count))
        }
        output.withUnsafeMutableBufferPointer { out in
          stream.next_out = out.baseAddress! + produced
          stream.avail_out = UInt32(out.count - produced)
          status = CZlib.inflate(&stream, Z_NO_FLUSH)
          produced = out.count - Int(stream.avail_out)
        }
      }
    }
    guard status == Z_STREAM_END else {
      throw .malformed(line: 0, reason: "gzip data is damaged (zlib status \(status))")
    }
    output.removeSubrange(produced...)
    return output
  }
}
