import Testing

@testable import Geodesy

/// `RedisGeoArea.ScannedCells.holding(score:)`: how many scanned cells hold a score decides
/// whether Redis lists a member once, twice or not at all.
@Suite("The cells a search scans, held in a value")
struct ScannedCellsTests {
  /// A score whose prefix at `step` is `cell`, with arbitrary low bits.
  static func score(in cell: UInt64, step: Int, low: UInt64 = 12345) -> UInt64 {
    let shift = UInt64(52 - 2 * step)
    return cell << shift | (low & ((1 << shift) - 1))
  }

  @Test func countsEveryCellHoldingAScore() {
    let step = 13
    var cells = RedisGeoArea.ScannedCells(step: step)
    for cell: UInt64 in [40, 41, 42, 43, 44, 45, 46, 47, 48] { cells.append(cell) }
    #expect(cells.count == 9)
    #expect(cells.map(\.bits) == Array(40...48))
    for cell: UInt64 in 40...48 {
      #expect(cells.holding(score: Self.score(in: cell, step: step)) == 1)
    }
    #expect(cells.holding(score: Self.score(in: 39, step: step)) == 0)
    #expect(cells.holding(score: Self.score(in: 49, step: step)) == 0)
  }

  /// The centre's shortcut must not hide a repeat of the centre, wherever the repeat is.
  @Test func aRepeatedCentreIsHeldTwice() {
    for position in 1..<9 {
      let step = 5
      var cells = RedisGeoArea.ScannedCells(step: step)
      for i in 0..<9 { cells.append(i == position ? 7 : UInt64(7 + i)) }
      #expect(cells.holding(score: Self.score(in: 7, step: step)) == 2, "repeat at \(position)")
      #expect(cells.holding(score: Self.score(in: 8, step: step)) == (position == 1 ? 0 : 1))
    }
  }

  @Test func fewerCellsLeaveNothingBehind() {
    var cells = RedisGeoArea.ScannedCells(step: 26)
    cells.append(0)
    #expect(cells.count == 1)
    #expect(cells.holding(score: 0) == 1)
    #expect(cells.holding(score: 1) == 0)
    // Places past the last cell must not match any score's prefix.
    #expect(cells.holding(score: (1 << 52) - 1) == 0)
  }

  /// The cells `cells(for:)` gives near a pole at a coarse step, where Redis's neighbours wrap
  /// onto the same cells, hold each score as often as they list its cell.
  @Test func searchCellsAgreeWithTheirList() {
    let searches = [
      RedisGeoArea.Search(
        longitude: 0, latitude: 85.05, shape: .circle(radius: 5000), conversion: 1000),
      RedisGeoArea.Search(
        longitude: 179.99, latitude: 0, shape: .circle(radius: 1), conversion: 1000),
      RedisGeoArea.Search(
        longitude: 139.6917, latitude: 35.6895, shape: .box(width: 3, height: 2), conversion: 1000),
    ]
    for search in searches {
      let cells = RedisGeoArea.cells(for: search)
      for cell in cells {
        let listed = cells.filter { $0.bits == cell.bits }.count
        #expect(cells.holding(score: Self.score(in: cell.bits, step: cells.step)) == listed)
      }
    }
  }
}
