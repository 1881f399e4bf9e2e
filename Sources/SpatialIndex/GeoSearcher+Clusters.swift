import Geodesy

extension GeoSearcher {
  /// Clusters by grid cell. A node that falls in one cell and whose items all match the filter
  /// is counted from its aggregates without visiting its items; only nodes that straddle cell
  /// edges are opened, so the work follows the cells' edges, not the number of items.
  public func clusters(in box: GeoBox, zoom: Int, filter: Filter = .all) -> [Cluster] {
    let grid = ClusterGrid(zoom: zoom)
    let (rows, columns) = grid.cells(covering: box)
    let rowsOf = RowLocator(grid: grid, rows: rows)
    let west = columns[0]
    let east = columns.count > 1 ? columns[1] : columns[0]
    @inline(__always) func wantedColumn(_ c: Int) -> Bool { west.contains(c) || east.contains(c) }
    var cells = [Int: ClusterCell]()
    swap(&cells, &self.cells)
    cells.removeAll(keepingCapacity: true)
    var stack = takeStack()
    @inline(__always) func add(_ id: ItemID, _ lon: Double, _ lat: Double) {
      let c = grid.column(longitude: lon)
      guard wantedColumn(c) else { return }
      let r = rowsOf.row(latitude: lat)
      guard rows.contains(r) else { return }
      cells[r << 32 | c, default: ClusterCell()].add(id: id, longitude: lon, latitude: lat)
    }
    reading { tree, overflow in
      for item in overflow.items where filter.matches(item.attributes) {
        add(item.id, item.longitude, item.latitude)
      }
      Self.pushRoot(tree, filter, onto: &stack)
      while let entry = stack.popLast() {
        let g = Int(entry.ref)
        let ll = tree.bbox + g * 4
        let colWest = grid.column(longitude: ll[0])
        let colEast = grid.column(longitude: ll[2])
        guard
          (colEast >= west.lowerBound && colWest <= west.upperBound)
            || (colEast >= east.lowerBound && colWest <= east.upperBound)
        else { continue }
        let rowTop = rowsOf.row(latitude: ll[3])
        let rowBottom = rowsOf.row(latitude: ll[1])
        guard rowBottom >= rows.lowerBound, rowTop <= rows.upperBound else { continue }
        let n = Int(tree.count[g])
        if rowTop == rowBottom, colWest == colEast, n >= 2,
          filter.matchesAll(any: tree.anyBits[g], every: tree.everyBits[g])
        {
          cells[rowTop << 32 | colWest, default: ClusterCell()].add(
            count: n, sumLongitude: tree.sums[g * 2], sumLatitude: tree.sums[g * 2 + 1],
            minLongitude: ll[0], minLatitude: ll[1], maxLongitude: ll[2], maxLatitude: ll[3])
          continue
        }
        if entry.level == 0 {
          for s in tree.slots(of: g) where tree.passes(s, filter) {
            add(tree.ids[s], tree.lonlat[s * 2], tree.lonlat[s * 2 + 1])
          }
          continue
        }
        for c in tree.children(of: g, level: Int(entry.level)) where tree.mayMatch(c, filter) {
          stack.append(Ref(ref: Int32(c), level: entry.level - 1))
        }
      }
    }
    self.stack = stack
    let markers = cells.keys.sorted().map { key in
      cells[key]!.marker(grid: grid, row: key >> 32, column: key & 0xFFFF_FFFF)
    }
    swap(&cells, &self.cells)
    return markers
  }
}
