import Accounts
import DomainTestSupport
import Foundation
import Geodesy
import MediaFiles
import Pins
import RedisTestSupport
import SQLiteDomainStorage
import Testing

/// The pins' rules, in process on a temporary store: which circles hold a point (against a
/// brute-force great-circle check), who opens a photo from where, votes, and a restart.
@Suite("Pins in process")
struct PinsTests {
  static let migrations = SQLiteAccounts.migrations + SQLitePins.migrations

  /// Pins on the store, with two accounts; rate limits lifted unless `configure` sets them.
  static func pins(
    _ temporary: TemporaryStore, _ configure: (inout Pins.Configuration) -> Void = { _ in }
  ) async throws -> (Pins, ana: Int64, bo: Int64) {
    let (accounts, ids) = try await temporary.accounts(signingUp: [
      "ana@example.org", "bo@example.org",
    ])
    return (try make(temporary, accounts, configure), ids[0], ids[1])
  }

  /// Pins on the store's accounts (again, after a restart).
  static func make(
    _ temporary: TemporaryStore, _ accounts: Accounts,
    _ configure: (inout Pins.Configuration) -> Void = { _ in }
  ) throws -> Pins {
    var configuration = Pins.Configuration()
    configuration.addsPerHour = 0
    configuration.opensPerHour = 0
    configure(&configuration)
    let media = try MediaFiles(directory: temporary.directory + "/media")
    return try Pins(
      storage: SQLitePins(temporary.store), accounts: accounts, media: media,
      configuration: configuration)
  }

  @Test("the circles holding a point are exactly those within their radius, on the sphere")
  func circlesHoldingAPoint() async throws {
    let temporary = try TemporaryStore(migrations: Self.migrations)
    let (pins, ana, _) = try await Self.pins(temporary)
    var random = SystemRandomNumberGenerator()
    var added: [Pin] = []
    // Around Paris, and across the antimeridian near Fiji, radii 10 m to 50 km.
    for (lon, lat) in [(2.35, 48.85), (179.9, -17.0)] {
      for _ in 0..<150 {
        let radius = exp(Double.random(in: log(10.0)...log(50_000.0), using: &random))
        var pinLon = lon + Double.random(in: -0.5...0.5, using: &random)
        if pinLon > 180 { pinLon -= 360 }
        added.append(
          try await answer {
            pins.add(
              owner: ana, longitude: pinLon, latitude: lat + Double.random(in: -0.5...0.5),
              radius: radius, json: "{}", $0)
          }.get())
      }
    }
    var checked = 0
    for (lon, lat) in [(2.35, 48.85), (179.9, -17.0)] {
      for _ in 0..<200 {
        var queryLon = lon + Double.random(in: -0.6...0.6, using: &random)
        if queryLon > 180 { queryLon -= 360 }
        let queryLat = lat + Double.random(in: -0.6...0.6, using: &random)
        let found = Set(try pins.at(longitude: queryLon, latitude: queryLat).get().map(\.id))
        for pin in added {
          let d = Sphere.earth.distance(
            longitude: pin.longitude, latitude: pin.latitude, longitude: queryLon,
            latitude: queryLat)
          // A point within a millimetre of a circle's edge may go either way.
          guard abs(d - pin.radius) > 0.001 else { continue }
          #expect(
            found.contains(pin.id) == (d < pin.radius), "pin \(pin.id): \(d) m, r \(pin.radius)")
          checked += 1
        }
      }
    }
    #expect(checked > 100_000)
  }

  @Test("a photo opens only inside its circle; outside, how far the edge is; no self-votes")
  func openingAndVoting() async throws {
    let temporary = try TemporaryStore(migrations: Self.migrations)
    let (pins, ana, bo) = try await Self.pins(temporary)
    let bad = await answer {
      pins.add(owner: ana, longitude: 2.35, latitude: 48.85, radius: 5, json: "{}", $0)
    }
    #expect(throws: PinError.invalid("radius", "must be 10 m to 50 km")) { try bad.get() }
    let pin = try await answer {
      pins.add(owner: ana, longitude: 2.35, latitude: 48.85, radius: 150, json: "{}", $0)
    }.get()
    let noPhoto = await answer {
      pins.open(id: pin.id, account: bo, longitude: 2.35, latitude: 48.85, $0)
    }
    #expect(throws: PinError.noPhoto) { try noPhoto.get() }
    let jpeg = try MediaFixtures.bytes("python.jpg")
    _ = try await answer { pins.setPhoto(owner: ana, id: pin.id, bytes: jpeg, $0) }.get()
    let stolen = await answer { pins.setPhoto(owner: bo, id: pin.id, bytes: jpeg, $0) }
    #expect(throws: PinError.noPermission) { try stolen.get() }
    let inside = try await answer {
      pins.open(id: pin.id, account: bo, longitude: 2.3505, latitude: 48.8505, $0)
    }.get()
    #expect(inside == jpeg)
    // 0.008° of latitude north is about 890 m from the centre: 740 m from the edge (and within
    // the kilometre an opener may move at once: `OpenerTravel`).
    let outside = await answer {
      pins.open(id: pin.id, account: bo, longitude: 2.35, latitude: 48.858, $0)
    }
    guard case .failure(.notInRange(let metres)) = outside else {
      Issue.record("opened from outside: \(outside)")
      return
    }
    #expect((730...750).contains(metres), "\(metres)")
    let own = await answer { pins.vote(account: ana, id: pin.id, vote: 1, $0) }
    #expect(throws: PinError.ownVote) { try own.get() }
    #expect(try await answer { pins.vote(account: bo, id: pin.id, vote: 1, $0) }.get().ups == 1)
  }

  @Test("pins, photos and votes are there after a restart")
  func restart() async throws {
    let temporary = try TemporaryStore(migrations: Self.migrations)
    let (pins, ana, bo) = try await Self.pins(temporary)
    let pin = try await answer {
      pins.add(
        owner: ana, longitude: 9.52, latitude: 47.14, radius: 200,
        json: #"{"caption":"Vaduz"}"#, $0)
    }.get()
    let png = try MediaFixtures.bytes("python.png")
    _ = try await answer { pins.setPhoto(owner: ana, id: pin.id, bytes: png, $0) }.get()
    _ = try await answer { pins.vote(account: bo, id: pin.id, vote: 1, $0) }.get()
    _ = pins
    _ = try temporary.reopen()
    let reloaded = try Self.make(temporary, try await temporary.accounts().0)
    let found = try #require(reloaded.pin(pin.id))
    #expect(found.caption == "Vaduz" && found.ups == 1 && found.radius == 200)
    #expect(try reloaded.at(longitude: 9.52, latitude: 47.14).get().map(\.id) == [pin.id])
    let photo = try await answer {
      reloaded.open(id: pin.id, account: bo, longitude: 9.52, latitude: 47.14, $0)
    }.get()
    #expect(photo == png)
  }
}
