import Keyspace
import NIOCore
import RESP
import SpatialIndex

/// A reply buffer per event-loop thread, for replies built on the hot path: a search's reply
/// is taken from the thread's slot, copied into the connection's output, and handed back
/// (`Outcome.recycle`) before the thread's next command, so the next one writes over the same
/// storage instead of allocating, and no reference is counted on the way. A buffer still held
/// elsewhere is never written over: `RESPWriter` clears it, and clearing a shared `ByteBuffer`
/// allocates a fresh one.
public enum ReplyBuffers {
  /// Buffers past this size are let go rather than kept.
  static let keptCapacity = 16 * 1024

  private static let buffers = PerThread<ByteBuffer>(padded: true)

  /// A reply written by `body` into this thread's buffer (only this thread touches its slot).
  public static func reply(
    protocol version: RESPProtocolVersion, _ body: (inout RESPWriter) -> Void
  ) -> RESPValue {
    var writer: RESPWriter
    if let slot = ThreadSlot.current, let buffer = buffers.take(slot) {
      writer = RESPWriter(protocol: version, reusing: consume buffer)
    } else {
      writer = RESPWriter(protocol: version, capacity: 512)
    }
    body(&writer)
    return writer.reply
  }

  /// Keeps a written reply's storage for this thread's next reply.
  static func recycle(_ reply: consuming RESPValue) {
    guard case .encoded(let buffer) = consume reply, buffer.capacity <= keptCapacity,
      let slot = ThreadSlot.current
    else { return }
    buffers[slot] = buffer
  }
}
