/// Where the modules fall in a square image: each module an integer number of pixels (the
/// largest that fits with the quiet zone), the symbol centred.
struct QRLayout {
  /// The light margin around the symbol, in modules, that ISO/IEC 18004 asks for.
  static let quietZone = 4

  let size: Int
  let matrix: QRMatrix
  /// Pixels per module.
  let scale: Int
  /// The first dark-capable pixel, on each axis: the centring margin plus the quiet zone.
  let origin: Int

  init(_ matrix: QRMatrix, size: Int) throws(QRCodeError) {
    let modules = matrix.width + 2 * Self.quietZone
    guard size >= modules else { throw .sizeTooSmall(needed: modules) }
    self.size = size
    self.matrix = matrix
    scale = size / modules
    origin = (size - scale * modules) / 2 + Self.quietZone * scale
  }

  /// Each row's runs of dark modules, as (row, first column, count).
  var darkRuns: [(row: Int, column: Int, count: Int)] {
    var runs: [(Int, Int, Int)] = []
    for row in 0..<matrix.width {
      var column = 0
      while column < matrix.width {
        guard matrix[row, column] else {
          column += 1
          continue
        }
        let start = column
        while column < matrix.width && matrix[row, column] { column += 1 }
        runs.append((row, start, column - start))
      }
    }
    return runs
  }
}
