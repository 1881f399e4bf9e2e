/// A set of row ids (`IdTable`'s slots, a byte each): at a million ids a `Set<Int64>` took 2^21
/// buckets of 8 bytes.
public struct IdSet: Sendable {
  private var table = IdTable<Bool>()

  public init() {}

  public func contains(_ id: Int64) -> Bool { table[id] != nil }

  /// Whether `id` was not there before.
  @discardableResult
  public mutating func insert(_ id: Int64) -> Bool {
    defer { table[id] = true }
    return table[id] == nil
  }

  public mutating func remove(_ id: Int64) { table[id] = nil }
}
