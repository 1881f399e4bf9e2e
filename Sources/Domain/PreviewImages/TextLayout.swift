/// Text broken into lines that fit a width: at word boundaries, a word too long for a line
/// split where the line ends, and what does not fit in the lines allowed cut with `...`.
struct TextLayout: Equatable {
  let lines: [[UInt64]]
  let scale: Int

  /// Pixels a line of `count` glyphs takes at `scale`: no gap after the last.
  static func width(_ count: Int, scale: Int) -> Int {
    count == 0 ? 0 : (count * PixelFont.advance - 1) * scale
  }

  /// The largest of `scales` at which `glyphs` fits `width` in `maxLines`; else the smallest,
  /// cut.
  static func fit(_ glyphs: [UInt64], width: Int, scales: [Int], maxLines: Int) -> TextLayout {
    for scale in scales {
      let lines = wrap(glyphs, perLine: perLine(width, scale))
      if lines.count <= maxLines { return TextLayout(lines: lines, scale: scale) }
    }
    let scale = scales.last ?? 1
    let perLine = perLine(width, scale)
    var lines = Array(wrap(glyphs, perLine: perLine).prefix(maxLines))
    if !lines.isEmpty {
      let dot = PixelFont.ascii[Int(UInt8(ascii: ".")) - 32]
      var last = lines.removeLast()
      last = Array(last.prefix(max(0, perLine - 3)))
      while last.last == PixelFont.space { last.removeLast() }
      lines.append(last + [dot, dot, dot])
    }
    return TextLayout(lines: lines, scale: scale)
  }

  static func perLine(_ width: Int, _ scale: Int) -> Int {
    max(1, (width / scale + 1) / PixelFont.advance)
  }

  /// Greedy: each line takes as many words as fit.
  static func wrap(_ glyphs: [UInt64], perLine: Int) -> [[UInt64]] {
    var lines: [[UInt64]] = []
    var line: [UInt64] = []
    for word in glyphs.split(separator: PixelFont.space) {
      var word = Array(word)
      if !line.isEmpty && line.count + 1 + word.count <= perLine {
        line += [PixelFont.space] + word
        continue
      }
      if !line.isEmpty { lines.append(line) }
      while word.count > perLine {
        lines.append(Array(word.prefix(perLine)))
        word.removeFirst(perLine)
      }
      line = word
    }
    if !line.isEmpty { lines.append(line) }
    return lines
  }
}
