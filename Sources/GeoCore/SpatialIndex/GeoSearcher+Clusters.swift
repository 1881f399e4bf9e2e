import Geodesy

extension GeoSearcher {
  /// Clusters by grid cell. A node that falls in one cell and whose items all match the filter
  /// is counted from its aggregates without visiting its items; only nodes that straddle cell
  /// edges are opened, so the work follows the cells' edges, not the number of items.
  public func clusters(in box: GeoBox, zoom: Int, filter: Filter = .all) -> [Cluster] {
    let grid = ClusterGrid(zoom: zoom)
    let (rows, columns) = grid.cells(covering: box)
    let rowsOf = RowLocator(grid: grid, rows: rows)
    // The latitudes the rows span, a little wider: a node wholly outside them is skipped.
    // The edge rows also hold everything beyond the Mercator map's ±85.05°.
    let north =
      rows.lowerBound == 0
      ? .infinity : WebMercator.latitude(y: Double(rows.lowerBound) / Double(grid.size)) + 1e-6
    let south =
      rows.upperBound == grid.size - 1
      ? -.infinity : WebMercator.latitude(y: Double(rows.upperBound + 1) / Double(grid.size)) - 1e-6
    let west = columns[0]
    let east = columns.count > 1 ? columns[1] : columns[0]
    @inline(__always) func wantedColumn(_ c: Int) -> Bool { west.contains(c) || east.contains(c) }
    var cells = CellAccumulator()
    swap(&cells, &self.cells)
    cells.begin(rows: rows, columns: columns)
    var stack = takeStack()
    @inline(__always) func add(_ id: ItemID, _ lon: Double, _ lat: Double) {
      let c = grid.column(longitude: lon)
      guard wantedColumn(c) else { return }
      let r = rowsOf.row(latitude: lat)
      guard rows.contains(r) else { return }
      cells.withCell(row: r, column: c) { $0.add(id: id, longitude: lon, latitude: lat) }
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
        let n = Int(tree.count[g])
        // Rows cost a search, columns a multiplication: find rows only for a node that could be
        // taken whole (one column) or opened item by item (a leaf).
        if colWest != colEast && entry.level > 0 {
          if ll[3] < south || ll[1] > north { continue }
        } else {
          let rowTop = rowsOf.row(latitude: ll[3])
          let rowBottom = rowsOf.row(latitude: ll[1])
          guard rowBottom >= rows.lowerBound, rowTop <= rows.upperBound else { continue }
          if rowTop == rowBottom, colWest == colEast, n >= 2,
            filter.isAll || filter.matchesAll(any: tree.anyBits[g], every: tree.everyBits[g])
          {
            cells.withCell(row: rowTop, column: colWest) {
              $0.add(
                count: n, sumLongitude: tree.sums[g * 2], sumLatitude: tree.sums[g * 2 + 1],
                minLongitude: ll[0], minLatitude: ll[1], maxLongitude: ll[2], maxLatitude: ll[3])
            }
            continue
          }
          if entry.level == 0 {
            let sharedRow = rowTop == rowBottom ? rowTop : nil
            for s in tree.slots(of: g) where tree.passes(s, filter) {
              let lon = tree.lonlat[s * 2]
              let lat = tree.lonlat[s * 2 + 1]
              let c = grid.column(longitude: lon)
              guard wantedColumn(c) else { continue }
              let r = sharedRow ?? rowsOf.row(latitude: lat)
              guard rows.contains(r) else { continue }
              cells.withCell(row: r, column: c) {
                $0.add(id: tree.ids[s], longitude: lon, latitude: lat)
              }
            }
            continue
          }
        }
        for c in tree.children(of: g, level: Int(entry.level)) where tree.mayMatch(c, filter) {
          stack.append(Ref(ref: Int32(c), level: entry.level - 1))
        }
      }
    }
    self.stack = stack
    let markers = cells.finish(grid: grid)
    swap(&cells, &self.cells)
    return markers
  }
}
