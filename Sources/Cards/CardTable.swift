/// The cards by id, in an array indexed by id. Ids are handed out in sequence from 1, so the
/// array is dense, and a card costs its own size (about 700 bytes with its many optional
/// fields): a dictionary of them cost over twice that, its table being at most three quarters
/// full and doubling as it grows, every bucket touched. A deleted card leaves an empty slot.
struct CardTable {
  private var slots: [Card?] = []

  subscript(id: Int64) -> Card? {
    get { id > 0 && id <= slots.count ? slots[Int(id - 1)] : nil }
    set {
      guard id > 0 else { return }
      let i = Int(id - 1)
      if i >= slots.count {
        guard newValue != nil else { return }
        slots.append(contentsOf: repeatElement(nil, count: i + 1 - slots.count))
      }
      slots[i] = newValue
    }
  }
}
