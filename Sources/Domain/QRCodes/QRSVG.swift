/// The code as SVG text: one path of the dark modules on the same pixel grid as the raster
/// images, so that it renders to the same pixels at its own size.
enum QRSVG {
  static func svg(_ layout: QRLayout, transparent: Bool) -> [UInt8] {
    let side = layout.size
    var path = ""
    let runs = layout.darkRuns
    path.reserveCapacity(runs.count * 24)
    for run in runs {
      let x = layout.origin + run.column * layout.scale
      let y = layout.origin + run.row * layout.scale
      path += "M\(x) \(y)h\(run.count * layout.scale)v\(layout.scale)h-\(run.count * layout.scale)z"
    }
    let background =
      transparent ? "" : "<rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/>"
    let text = """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" width="\(side)" height="\(side)" \
      viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">\
      \(background)<path fill="#000" d="\(path)"/></svg>

      """
    return Array(text.utf8)
  }
}
