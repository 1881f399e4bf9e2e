import DomainSupport
import Durability
import Foundation
import Geocoding

extension Venues {
  /// What VENUE.CREATE's JSON may hold: a name, and `lon` and `lat` or an `address` (free
  /// text, geocoded when no coordinates are given).
  struct NewVenue {
    var name: String
    var longitude: Double?
    var latitude: Double?
    var address: String?

    private struct Fields: Decodable {
      var name: String?
      var lon: Double?
      var lat: Double?
      var address: String?
    }

    static func parse(_ json: String) -> Result<NewVenue, VenueError> {
      let data = Data(json.utf8)
      guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        return .failure(.invalid(field: "json", reason: "not a JSON object"))
      }
      let known = ["name", "lon", "lat", "address"]
      if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
        return .failure(.invalid(field: unknown, reason: "unknown field"))
      }
      // Each field's type (a null is none of them).
      for key in known where object[key] != nil {
        let single = try? JSONSerialization.data(withJSONObject: [key: object[key]!])
        let decoded = single.flatMap { try? JSONDecoder().decode(Fields.self, from: $0) }
        guard let decoded,
          decoded.name != nil || decoded.address != nil || decoded.lon != nil || decoded.lat != nil
        else {
          let kind = key == "lon" || key == "lat" ? "a number" : "a string"
          return .failure(.invalid(field: key, reason: "must be \(kind)"))
        }
      }
      guard let fields = try? JSONDecoder().decode(Fields.self, from: data) else {
        return .failure(.invalid(field: "json", reason: "not a venue"))
      }
      guard let text = fields.name else {
        return .failure(.invalid(field: "name", reason: "required"))
      }
      let name: String
      switch validName(text, field: "name") {
      case .success(let valid): name = valid
      case .failure(let error): return .failure(error)
      }
      var venue = NewVenue(name: name)
      if let address = fields.address {
        let text = address.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.utf8.count <= 1000 else {
          return .failure(.invalid(field: "address", reason: "1 to 1000 bytes"))
        }
        venue.address = text
      }
      switch (fields.lon, fields.lat) {
      case (nil, nil):
        guard venue.address != nil else {
          return .failure(.invalid(field: "lon", reason: "lon and lat, or an address, required"))
        }
      case (let lon?, let lat?):
        guard validPosition(lon, lat) else {
          return .failure(.invalid(field: "lon", reason: "longitude or latitude out of range"))
        }
        (venue.longitude, venue.latitude) = (lon, lat)
      default:
        return .failure(
          .invalid(field: fields.lon == nil ? "lon" : "lat", reason: "required with the other"))
      }
      return .success(venue)
    }
  }

  static func validPosition(_ lon: Double, _ lat: Double) -> Bool {
    lon.isFinite && lat.isFinite && abs(lon) <= 180 && abs(lat) <= 85.05112878
  }

  // MARK: Reading

  public func venue(_ id: Int64) -> Venue? { state.withLock { $0.venues[id] } }

  public func venues(of owner: Int64) -> [Venue] {
    state.withLock { s in (s.byOwner[owner] ?? []).compactMap { s.venues[$0] } }
  }

  /// The check-in code, for the venue's owner only.
  public func code(owner: Int64, venue id: Int64) -> Result<String, VenueError> {
    owned(owner, id).map(\.code)
  }

  func owned(_ owner: Int64, _ id: Int64) -> Result<Venue, VenueError> {
    guard let venue = venue(id) else { return .failure(.notFound("no such venue")) }
    guard venue.ownerId == owner else { return .failure(.noPermission("the venue is not yours")) }
    return .success(venue)
  }

  // MARK: Writing

  /// A new venue of `owner`, at the coordinates given or where its address is found.
  public func create(owner: Int64, json: String, _ done: @escaping Done<Venue>) {
    guard accounts.account(owner) != nil else {
      return done(.failure(.notFound("no such account")))
    }
    let parsed: NewVenue
    switch NewVenue.parse(json) {
    case .success(let venue): parsed = venue
    case .failure(let error): return done(.failure(error))
    }
    if let wait = creates.take(["account:\(owner)"]) {
      return done(
        .failure(.limit("at most \(creates.limit) venues an hour, retry after \(wait) s")))
    }
    share(.created(account: owner))
    if let lon = parsed.longitude, let lat = parsed.latitude {
      return insert(owner, parsed, lon, lat, done)
    }
    guard let geocoder = configuration.geocoder else {
      return done(.failure(.geocoding("no geocoder is configured")))
    }
    // Off Swift's cooperative pool, which blocking code elsewhere in the process may hold.
    Task(executorPreference: DispatchTaskExecutor.shared) { [self] in
      let best: Place?
      do {
        best = try await geocoder.search(GeocodeQuery(parsed.address ?? "", limit: 1)).first
      } catch {
        return done(.failure(.geocoding("\(error)")))
      }
      guard let best, Self.validPosition(best.lon, best.lat) else {
        return done(.failure(.notFound("no place matches the address")))
      }
      insert(owner, parsed, best.lon, best.lat, done)
    }
  }

  private func insert(
    _ owner: Int64, _ parsed: NewVenue, _ lon: Double, _ lat: Double, _ done: @escaping Done<Venue>
  ) {
    let created = Date(timeIntervalSince1970: now.rounded(.down))
    let made = state.withLock { s -> Venue? in
      guard let id = Self.newId(storage.ids?.venues, &s.nextVenue) else { return nil }
      var code = Self.code()
      while s.byCode[code] != nil { code = Self.code() }
      let venue = Venue(
        id: id, ownerId: owner, name: parsed.name, longitude: lon, latitude: lat,
        address: parsed.address, code: code, createdAt: created)
      Self.add(venue, to: &s)
      return venue
    }
    guard let venue = made else { return done(.failure(Self.waitingForIds)) }
    commit([storage.inserting(venue)], answer: venue, done)
  }

  /// Gives the owner's venue a new code: the old one checks nobody in from now on (its page
  /// says the code changed, until the next rotation).
  public func rotate(owner: Int64, venue id: Int64, _ done: @escaping Done<String>) {
    let rotated = state.withLock { s -> Result<String, VenueError> in
      guard var venue = s.venues[id] else { return .failure(.notFound("no such venue")) }
      guard venue.ownerId == owner else {
        return .failure(.noPermission("the venue is not yours"))
      }
      var code = Self.code()
      while s.byCode[code] != nil { code = Self.code() }
      Self.replaceCode(of: &venue, with: code, in: &s)
      return .success(code)
    }
    guard case .success(let code) = rotated else { return done(rotated) }
    // What memory holds when it applies: racing rotations leave the latest.
    let write = storage.syncingCode(of: id) { [self] in venue(id)?.code }
    commit([write], answer: code, done)
  }
}

extension Venues {
  static func replaceCode(of venue: inout Venue, with code: String, in s: inout State) {
    guard venue.code != code else { return }
    s.byCode[venue.code] = nil
    if let previous = venue.previousCode { s.byPreviousCode[previous] = nil }
    venue.previousCode = venue.code
    s.byPreviousCode[venue.code] = venue.id
    venue.code = code
    s.byCode[code] = venue.id
    s.venues[venue.id] = venue
  }
}
