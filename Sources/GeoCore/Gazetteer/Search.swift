import Geocoding

/// Forward search. The text is split at commas; the first part that names a place is the place,
/// and the parts after it qualify it (region or country, by name or code), so "Paris, TX",
/// "Prattville, Alabama", "Paris, France" and "Städtle 1, 9490 Vaduz, Liechtenstein" all work.
/// Runs of digits (postcodes, house numbers) are dropped. Without commas, up to three trailing
/// words may be a qualifier ("Paris Texas"). See docs/GEOCODING.md for ranking and confidence.
extension Gazetteer {
  /// A qualifier's possible meanings; a place satisfies it by being in one of them.
  struct Qualifier {
    var countries: Set<Int> = []
    var regions: Set<Int> = []

    func admits(country: Int, region: Int) -> Bool {
      countries.contains(country) || regions.contains(region)
    }
  }

  /// One reading of a query: a folded place name and the constraints on it.
  struct Reading {
    var key: String
    var qualifiers: [Qualifier]
    /// Parts passed over or not understood; each lowers the confidence.
    var misses: Int
  }

  /// `search`, synchronously.
  public func lookup(_ query: GeocodeQuery) throws(GeocodeError) -> [Place] {
    let query = try query.validated()
    var country: Int?
    if let code = query.countryCode {
      guard let c = data.countryNames.byCode[code] else { throw .unknownCountryCode(code) }
      country = c
    }
    var extra = [Qualifier]()
    var misses = 0
    if let region = query.region {
      if let q = qualifier(Folding.fold(region)) { extra.append(q) } else { misses += 1 }
    }
    // The gazetteer knows places, not streets or postcodes: a structured query is its city, a
    // street passed over as in free text.
    let text = query.isStructured ? query.city ?? "" : query.text
    if query.street != nil { misses += 1 }
    // Each part's words without runs of digits (postcodes, house numbers), and what it means
    // as a qualifier; a part of digits alone is neither place nor qualifier.
    let parts = text.split(separator: ",").map { part in
      Folding.fold(String(part)).split(separator: " ").filter { !$0.allSatisfy(\.isNumber) }
    }.filter { !$0.isEmpty }
    let meanings = parts.map { qualifier($0.joined(separator: " ")) }
    for (start, words) in parts.enumerated() {
      let after = meanings[(start + 1)...]
      let qualifiers = after.compactMap { $0 } + extra
      // A later part that is a region or country ("Vaduz, Texas", "..., CH") is read as a
      // place only inside itself (New York in New York), never as a namesake elsewhere.
      let itself = start > 0 ? meanings[start].map { [$0] } ?? [] : []
      let passedOver = misses + start + after.filter { $0 == nil }.count
      for reading in readings(words) {
        let found = rank(
          Reading(
            key: reading.key, qualifiers: qualifiers + itself + reading.qualifiers,
            misses: passedOver),
          country: country, limit: query.limit)
        if !found.isEmpty { return found }
      }
    }
    return []
  }

  /// The ways to read a part's words as a place: whole, then with up to three trailing words as
  /// a qualifier ("Paris Texas").
  private func readings(_ words: [Substring]) -> [(key: String, qualifiers: [Qualifier])] {
    var out = [(key: words.joined(separator: " "), qualifiers: [Qualifier]())]
    for tail in 1..<min(4, words.count) {
      let split = words.count - tail
      if let q = qualifier(words[split...].joined(separator: " ")) {
        out.append((words[..<split].joined(separator: " "), [q]))
      }
    }
    return out
  }

  private func qualifier(_ key: String) -> Qualifier? {
    let countries = data.countryNames.keys[key] ?? []
    let regions = data.regionKeys[key] ?? []
    if countries.isEmpty && regions.isEmpty { return nil }
    return Qualifier(countries: Set(countries), regions: Set(regions))
  }

  /// The places named `reading.key` that satisfy every constraint, best first: ranked by
  /// population, a primary-name match counting ten times an alternate name's.
  private func rank(_ reading: Reading, country: Int?, limit: Int) -> [Place] {
    let key = Array(reading.key.utf8)
    var matches = [(place: Int, weight: Double, quality: Double)]()
    for place in keys.candidates(key) {
      guard let position = data.keyPosition(key, in: place) else { continue }
      let c = Int(data.country[place])
      let r = Int(data.region[place])
      if let country, c != country { continue }
      guard reading.qualifiers.allSatisfy({ $0.admits(country: c, region: r) }) else { continue }
      let primary = position == 0
      let weight = (Double(data.population[place]) + 100) * (primary ? 10 : 1)
      matches.append((place, weight, primary ? 1 : 0.9))
    }
    let total = matches.reduce(0) { $0 + $1.weight }
    let penalty = Self.missPenalty(reading.misses)
    matches.sort { ($0.weight, $1.place) > ($1.weight, $0.place) }
    return matches.prefix(limit).map {
      place($0.place, confidence: $0.quality * penalty * $0.weight / total)
    }
  }

  /// Each part skipped or not understood multiplies the confidence by 0.8.
  static func missPenalty(_ misses: Int) -> Double {
    var p = 1.0
    for _ in 0..<misses { p *= 0.8 }
    return p
  }
}
