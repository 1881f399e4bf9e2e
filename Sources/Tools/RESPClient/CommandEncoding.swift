import NIOCore

/// Requests as RESP multibulk frames, the form redis-benchmark and client libraries send.
public enum CommandEncoding {
  public static func write(_ arguments: [String], to buffer: inout ByteBuffer) {
    buffer.writeStaticString("*")
    buffer.writeString(String(arguments.count))
    buffer.writeStaticString("\r\n")
    for argument in arguments {
      buffer.writeStaticString("$")
      buffer.writeString(String(argument.utf8.count))
      buffer.writeStaticString("\r\n")
      buffer.writeString(argument)
      buffer.writeStaticString("\r\n")
    }
  }

  public static func encode(_ commands: [[String]]) -> ByteBuffer {
    var buffer = ByteBuffer()
    for command in commands { write(command, to: &buffer) }
    return buffer
  }

  /// A number in fixed notation with at most `decimals` decimals, trailing zeros dropped: the same
  /// text on every platform, never an exponent, which any server's number parser accepts.
  /// 7 decimals of a degree are about a centimetre.
  public static func number(_ value: Double, decimals: Int = 7) -> String {
    precondition(value.isFinite, "cannot send a non-finite number")
    var scale: Double = 1
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    precondition(scaled < 9e18, "number out of range")
    let units = UInt64(scaled)
    let factor = UInt64(scale)
    var text = units == 0 || value >= 0 ? "" : "-"
    text += String(units / factor)
    var fraction = units % factor
    if fraction != 0 {
      var digits = decimals
      while fraction % 10 == 0 {
        fraction /= 10
        digits -= 1
      }
      let raw = String(fraction)
      text += "." + String(repeating: "0", count: digits - raw.count) + raw
    }
    return text
  }
}
