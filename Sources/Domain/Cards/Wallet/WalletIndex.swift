import Foundation

/// One wallet's words, in memory, for `WALLET.SEARCH`: each held card's words (`WalletText`)
/// point to it, and the words are kept in byte order so that a prefix's words are one run.
/// A search scores only the entries that match every word of the query (bm25 with the
/// wallet's own statistics), so a word that thousands of cards share costs a pass over their
/// postings, not a lookup per match.
struct WalletIndex {
  /// A card holding a word: its slot, and the word's weighted count in its text.
  private struct Posting {
    var slot: UInt32
    var weight: UInt32
  }

  /// By slot: the entry (nil when the slot is free), its text's length, its words' ids.
  private var keys: [Wallets.Key?] = []
  private var lengths: [UInt32] = []
  private var wordsOf: [[UInt32]] = []
  private var freeSlots: [UInt32] = []
  private var slots: [Int64: UInt32] = [:]
  private var totalLength = 0

  /// By word id: the word ("" when the id is free) and its postings.
  private var words: [String] = []
  private var postings: [[Posting]] = []
  private var freeWords: [UInt32] = []
  private var ids: [String: UInt32] = [:]
  /// Word ids in the words' UTF-8 byte order; stale while a restart loads the wallet.
  private var sorted: [UInt32] = []

  /// Indexes the entry's text. While `loading`, the word order is left for `finishLoading`.
  mutating func insert(_ key: Wallets.Key, _ text: WalletText, loading: Bool = false) {
    remove(key.card)
    let slot = freeSlots.popLast() ?? UInt32(keys.count)
    if slot == keys.count {
      keys.append(nil)
      lengths.append(0)
      wordsOf.append([])
    }
    keys[Int(slot)] = key
    lengths[Int(slot)] = text.length
    slots[key.card] = slot
    totalLength += Int(text.length)
    var mine: [UInt32] = []
    mine.reserveCapacity(text.words.count)
    for (word, weight) in text.words {
      let id = ids[word] ?? newWord(word, sorting: !loading)
      postings[Int(id)].append(Posting(slot: slot, weight: weight))
      mine.append(id)
    }
    wordsOf[Int(slot)] = mine
  }

  /// Puts the words in order after a restart's `insert(_:_:loading:)` calls.
  mutating func finishLoading() {
    sorted = ids.values.sorted { Self.precedes(words[Int($0)], words[Int($1)]) }
  }

  mutating func remove(_ card: Int64) {
    guard let slot = slots.removeValue(forKey: card) else { return }
    for id in wordsOf[Int(slot)] {
      postings[Int(id)].removeAll { $0.slot == slot }
      if postings[Int(id)].isEmpty { forgetWord(id) }
    }
    totalLength -= Int(lengths[Int(slot)])
    keys[Int(slot)] = nil
    lengths[Int(slot)] = 0
    wordsOf[Int(slot)] = []
    freeSlots.append(slot)
  }

  /// The entries whose text has each of `query`'s words as a word's prefix, with their bm25
  /// scores (k1 1.2, b 0.75): a query word's frequency in an entry is its matching words'
  /// weighted count, its idf ln((N − n + 0.5) / (n + 0.5)) (at least 1e-6) over the N entries
  /// of the wallet, n of which match it; an entry's length is its number of words.
  func matches(_ query: [String]) -> [(score: Double, key: Wallets.Key)] {
    guard !query.isEmpty, !slots.isEmpty else { return [] }
    let width = keys.count
    // Each query word's weighted count per slot, and how many slots it matches.
    var counts = [UInt32](repeating: 0, count: width * query.count)
    var matched = [Int](repeating: 0, count: query.count)
    var candidates: [UInt32] = []
    for (q, prefix) in query.enumerated() {
      let base = q * width
      var i = lowerBound(prefix)
      while i < sorted.count, words[Int(sorted[i])].utf8.starts(with: prefix.utf8) {
        for posting in postings[Int(sorted[i])] {
          let at = base + Int(posting.slot)
          if counts[at] == 0 {
            matched[q] += 1
            if q == 0 { candidates.append(posting.slot) }
          }
          counts[at] += posting.weight
        }
        i += 1
      }
    }
    let n = Double(slots.count)
    let idf = matched.map { max(log((n - Double($0) + 0.5) / (Double($0) + 0.5)), 1e-6) }
    let averageLength = Double(totalLength) / n
    var found: [(score: Double, key: Wallets.Key)] = []
    for slot in candidates {
      var score = 0.0
      let length = Double(lengths[Int(slot)])
      for q in query.indices {
        let f = Double(counts[q * width + Int(slot)])
        guard f > 0 else {
          score = -1
          break
        }
        score += idf[q] * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * length / averageLength))
      }
      if score >= 0, let key = keys[Int(slot)] { found.append((score, key)) }
    }
    return found
  }

  // MARK: Helpers

  private mutating func newWord(_ word: String, sorting: Bool) -> UInt32 {
    let id: UInt32
    if let free = freeWords.popLast() {
      id = free
      words[Int(id)] = word
    } else {
      id = UInt32(words.count)
      words.append(word)
      postings.append([])
    }
    ids[word] = id
    if sorting { sorted.insert(id, at: lowerBound(word)) }
    return id
  }

  private mutating func forgetWord(_ id: UInt32) {
    let word = words[Int(id)]
    ids[word] = nil
    let at = lowerBound(word)
    if at < sorted.count, sorted[at] == id { sorted.remove(at: at) }
    words[Int(id)] = ""
    postings[Int(id)] = []
    freeWords.append(id)
  }

  /// The first place in `sorted` whose word is not before `word`.
  private func lowerBound(_ word: String) -> Int {
    var (low, high) = (0, sorted.count)
    while low < high {
      let mid = (low + high) / 2
      if Self.precedes(words[Int(sorted[mid])], word) { low = mid + 1 } else { high = mid }
    }
    return low
  }

  private static func precedes(_ a: String, _ b: String) -> Bool {
    a.utf8.lexicographicallyPrecedes(b.utf8)
  }
}
