/// Bounds on what a client may declare, checked before anything is allocated for it.
public struct RESPLimits: Sendable, Equatable {
  /// Longest inline command line, and longest `*`/`$` header line (Redis's `PROTO_INLINE_MAX_SIZE`).
  public var maxInlineLength: Int
  /// Largest bulk string (Redis's `proto-max-bulk-len`).
  public var maxBulkLength: Int
  /// Most arguments in one multibulk command. Redis allows 2^31-1; a million is plenty for any
  /// real command and bounds what one declaration can make us hold.
  public var maxArrayLength: Int

  public init(
    maxInlineLength: Int = 64 * 1024, maxBulkLength: Int = 512 * 1024 * 1024,
    maxArrayLength: Int = 1024 * 1024
  ) {
    self.maxInlineLength = maxInlineLength
    self.maxBulkLength = maxBulkLength
    self.maxArrayLength = maxArrayLength
  }
}
