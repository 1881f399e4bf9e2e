/// Values by card id, in an array indexed by id: the cards themselves (`Cards.State`) and the
/// map's summaries (`CardMap`), and other modules' records by id (pins). Ids are handed out in sequence from 1, so the array is dense,
/// and a value costs its own size: a dictionary of cards cost over twice that, its table being
/// at most three quarters full and doubling as it grows, every bucket touched. A deleted card
/// leaves an empty slot.
public struct CardTable<Value> {
  private var slots: [Value?] = []

  public init() {}

  public subscript(id: Int64) -> Value? {
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
