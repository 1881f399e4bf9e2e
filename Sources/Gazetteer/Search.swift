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

  /// What a query resolved to: a folded place name and the constraints on it.
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
      guard let c = data.countryByCode[code] else { throw .unknownCountryCode(code) }
      country = c
    }
    var extra = [Qualifier]()
    var misses = 0
    if let region = query.region {
      if let q = qualifier(Folding.fold(region)) { extra.append(q) } else { misses += 1 }
    }
    let parts = query.text.split(separator: ",").map { Folding.fold(String($0)) }
    for (start, part) in parts.enumerated() {
      // A later part that is a region or country ("Vaduz, Texas", "..., CH") is read as a
      // place only inside itself (New York in New York), never as a namesake elsewhere.
      let itself = start > 0 ? qualifier(part) : nil
      for reading in readings(part, after: parts[(start + 1)...]) {
        var reading = reading
        reading.qualifiers += extra + (itself.map { [$0] } ?? [])
        reading.misses += misses + start
        let found = rank(reading, country: country, limit: query.limit)
        if !found.isEmpty { return found }
      }
    }
    return []
  }

  /// The ways to read one part as a place: whole, then with trailing words as a qualifier.
  private func readings(_ part: String, after rest: ArraySlice<String>) -> [Reading] {
    let words = part.split(separator: " ").filter { !$0.allSatisfy(\.isNumber) }
    guard !words.isEmpty else { return [] }
    var qualifiers = [Qualifier]()
    var misses = 0
    for text in rest {
      let words = text.split(separator: " ").filter { !$0.allSatisfy(\.isNumber) }
      if words.isEmpty { continue }  // a postcode alone
      if let q = qualifier(words.joined(separator: " ")) {
        qualifiers.append(q)
      } else {
        misses += 1
      }
    }
    var out = [Reading(key: words.joined(separator: " "), qualifiers: qualifiers, misses: misses)]
    for tail in 1..<min(4, words.count) {
      let split = words.count - tail
      if let q = qualifier(words[split...].joined(separator: " ")) {
        out.append(
          Reading(
            key: words[..<split].joined(separator: " "), qualifiers: qualifiers + [q],
            misses: misses))
      }
    }
    return out
  }

  private func qualifier(_ key: String) -> Qualifier? {
    let countries = data.countryKeys[key] ?? []
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
