/// The cells a clustering query fills, found by row and column. A viewport of up to
/// `maxDenseCells` cells (any real map screen) uses a flat table reused across queries; a larger
/// one falls back to a dictionary.
struct CellAccumulator {
  static let maxDenseCells = 1 << 22

  /// Cell number by table position, -1 where empty; `denseSize` entries are initialised.
  private var dense = ScratchBuffer<Int32>(capacity: 1)
  private var denseSize = 0
  private var sparse = [Int: Int32]()
  private var cells = ScratchBuffer<ClusterCell>()
  private var keys = [Int]()
  private var useDense = true
  private var firstRow = 0
  /// Columns map to table positions west range first, then the east one (antimeridian).
  private var westFirst = 0
  private var westLast = 0
  private var eastFirst = 0
  private var width = 0

  func free() {
    dense.free()
    cells.free()
  }

  mutating func begin(rows: ClosedRange<Int>, columns: [ClosedRange<Int>]) {
    cells.count = 0
    keys.removeAll(keepingCapacity: true)
    sparse.removeAll(keepingCapacity: true)
    firstRow = rows.lowerBound
    westFirst = columns[0].lowerBound
    westLast = columns[0].upperBound
    eastFirst = columns.count > 1 ? columns[1].lowerBound : 0
    width = columns.reduce(0) { $0 + $1.count }
    let total = rows.count.multipliedReportingOverflow(by: width)
    useDense = !total.overflow && total.partialValue <= Self.maxDenseCells
    if useDense && denseSize < total.partialValue {
      dense.free()
      dense = ScratchBuffer<Int32>(capacity: total.partialValue)
      dense.base.initialize(repeating: -1, count: total.partialValue)
      denseSize = total.partialValue
    }
  }

  /// The index in `cells` of the cell at a row and column the viewport covers, created empty.
  @inline(__always)
  mutating func cell(row r: Int, column c: Int) -> Int {
    if useDense {
      let i = position(row: r, column: c)
      if dense[i] < 0 {
        dense[i] = Int32(cells.count)
        cells.append(ClusterCell())
        keys.append(r << 32 | c)
      }
      return Int(dense[i])
    }
    let key = r << 32 | c
    if let i = sparse[key] { return Int(i) }
    sparse[key] = Int32(cells.count)
    cells.append(ClusterCell())
    keys.append(key)
    return cells.count - 1
  }

  @inline(__always)
  private func position(row r: Int, column c: Int) -> Int {
    let x =
      c >= westFirst && c <= westLast ? c - westFirst : westLast - westFirst + 1 + c - eastFirst
    return (r - firstRow) * width + x
  }

  @inline(__always)
  mutating func withCell(row r: Int, column c: Int, _ body: (inout ClusterCell) -> Void) {
    let i = cell(row: r, column: c)
    body(&cells.base[i])
  }

  /// The markers by row then column, and the table cleared for the next query.
  mutating func finish(grid: ClusterGrid) -> [Cluster] {
    let order = keys.indices.sorted { keys[$0] < keys[$1] }
    let markers = order.map { i in
      cells[i].marker(grid: grid, row: keys[i] >> 32, column: keys[i] & 0xFFFF_FFFF)
    }
    if useDense {
      for key in keys {
        let r = key >> 32
        let c = key & 0xFFFF_FFFF
        dense[position(row: r, column: c)] = -1
      }
    }
    return markers
  }
}
