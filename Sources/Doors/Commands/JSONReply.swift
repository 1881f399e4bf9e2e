import Foundation
import NIOCore
import RESP

extension RESPValue {
  /// A JSON object or array (of what `JSONSerialization` takes) as a bulk string: keys sorted,
  /// slashes unescaped, so a reply reads the same every time.
  public static func json(_ object: Any) -> RESPValue {
    let data =
      (try? JSONSerialization.data(
        withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
      ?? Data("{}".utf8)
    return .bulkString(ByteBuffer(bytes: data))
  }
}
