import Testing

@testable import Gazetteer

/// Queries are folded in Swift, the data in Python (data/make_gazetteer.py): the two must agree.
@Suite("Gazetteer folding")
struct FoldingTests {
  @Test(arguments: [
    ("Zürich", "zurich"), ("SÃO PAULO", "sao paulo"), ("Saint-Étienne", "saint etienne"),
    ("Straße", "strasse"), ("Ærøskøbing", "aeroskobing"), ("Łódź", "lodz"),
    ("  St. John's,  NL ", "st john s nl"), ("İstanbul", "istanbul"), ("ΑΘΉΝΑ", "αθηνα"),
    ("Москва", "москва"), ("東京", "東京"), ("９４９０", "9490"),
  ])
  func folds(_ text: String, _ folded: String) {
    #expect(Folding.fold(text) == folded)
  }

  @Test("Swift folds 5,000 sampled primary names, and every region's, as the generator did")
  func agreesWithGenerator() throws {
    let g = try Shared.gazetteer()
    var random = SeededGenerator(state: 3)
    var differing = [String]()
    for _ in 0..<5_000 {
      let i = random.int(below: g.data.count)
      let fields = g.data.fields(i)
      let firstKey = fields[7].split(separator: "|").first.map(String.init)
      if Folding.fold(fields[1]) != firstKey { differing.append(fields[1]) }
    }
    for region in g.data.regions where g.data.regionKeys[Folding.fold(region.name)] == nil {
      differing.append(region.name)
    }
    #expect(differing.isEmpty, "\(differing.prefix(20))")
  }
}
