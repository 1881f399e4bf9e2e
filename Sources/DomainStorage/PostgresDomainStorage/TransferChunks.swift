extension Array {
  /// The array in consecutive slices of at most `size`: a transfer's rows, a statement each.
  func chunks(_ size: Int) -> [ArraySlice<Element>] {
    stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
  }
}
