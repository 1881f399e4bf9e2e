import Keyspace
import NIOCore
import RESP
import SpatialIndex

/// A reply buffer per event-loop thread, for replies built on the hot path: a search's reply
/// is copied into the connection's output and dropped before the thread's next command, so
/// the next one writes over the same storage instead of allocating (two mallocs and two frees
/// per reply). A buffer still held elsewhere is never written over: `RESPWriter` clears it,
/// and clearing a shared `ByteBuffer` allocates a fresh one.
enum ReplyBuffers {
  /// Buffers past this size are let go rather than kept.
  static let keptCapacity = 16 * 1024

  private static let buffers = PerThread<ByteBuffer>(padded: true)

  /// A reply written by `body` into this thread's buffer (only this thread touches its slot).
  static func reply(
    protocol version: RESPProtocolVersion, _ body: (inout RESPWriter) -> Void
  ) -> RESPValue {
    let slot = ThreadSlot.current
    var writer: RESPWriter
    if let slot, let buffer = buffers.take(slot) {
      writer = RESPWriter(protocol: version, reusing: buffer)
    } else {
      writer = RESPWriter(protocol: version, capacity: 512)
    }
    body(&writer)
    if let slot, writer.buffer.capacity <= keptCapacity { buffers[slot] = writer.buffer }
    return writer.reply
  }
}
