import Foundation
import Testing

@testable import Datasets

@Suite struct CityCatalogTests {
  @Test func loadsTheBundledCities() throws {
    let catalog = try CityCatalog.standard()
    #expect(catalog.cities.count > 30_000)
    #expect(catalog.cities.map(\.geonameID) == catalog.cities.map(\.geonameID).sorted())
    let top = try #require(catalog.mostPopulous)
    #expect(top.population > 10_000_000)
    #expect(catalog.largest(10).count == 10)
    #expect(catalog.largest(10).first == top)
    // A quoted name with a comma comes through whole.
    #expect(catalog.cities.contains { $0.name == "Misato, Saitama" && $0.country == "JP" })
    for city in catalog.cities {
      #expect(abs(city.longitude) <= 180 && abs(city.latitude) <= 90 && city.population >= 0)
    }
  }

  @Test func parsesQuotesAndLineEndings() throws {
    let csv = """
      geonameid,name,country,population,longitude,latitude\r
      1,"Say ""hi"", there",XX,100,-0.5,1.25\r
      2,Plain,YY,0,180,-90

      3,"",ZZ,5,-180,90
      """
    let catalog = try CityCatalog.parse(Array(csv.utf8))
    #expect(
      catalog.cities == [
        City(
          geonameID: 1, name: "Say \"hi\", there", country: "XX", population: 100, longitude: -0.5,
          latitude: 1.25),
        City(
          geonameID: 2, name: "Plain", country: "YY", population: 0, longitude: 180, latitude: -90),
        City(geonameID: 3, name: "", country: "ZZ", population: 5, longitude: -180, latitude: 90),
      ])
  }

  @Test func rejectsMalformedInput() {
    let header = "geonameid,name,country,population,longitude,latitude\n"
    let bad = [
      "id,name\n1,a\n",  // wrong header
      header + "1,a,XX,10,1\n",  // too few fields
      header + "x,a,XX,10,1,2\n",  // id
      header + "1,a,XX,-3,1,2\n",  // population
      header + "1,a,XX,10,181,2\n",  // longitude
      header + "1,a,XX,10,1,nan\n",  // latitude
      header + "1,\"a,XX,10,1,2\n",  // unclosed quote
      header + "1,\"a\"b,XX,10,1,2\n",  // text after a quoted field
      "",  // nothing
    ]
    for text in bad {
      #expect(throws: DatasetError.self, "\(text)") { try CityCatalog.parse(Array(text.utf8)) }
    }
    do {
      _ = try CityCatalog.parse(Array((header + "1,a,XX,10,1\n").utf8), path: "f.csv")
      Issue.record("no error")
    } catch {
      #expect(error.description.hasPrefix("f.csv:2: expected 6 fields"))
    }
  }

  @Test func locatesTheDataDirectory() throws {
    let fromSource = try DataDirectory.locate(environment: [:], currentDirectory: "/nonexistent")
    #expect(
      FileManager.default.fileExists(atPath: fromSource.appendingPathComponent("cities.csv").path))
    #expect(fromSource.lastPathComponent == "data")

    let root = fromSource.deletingLastPathComponent().path
    #expect(try DataDirectory.locate(environment: [:], currentDirectory: root) == fromSource)
    #expect(
      try DataDirectory.locate(
        environment: ["CARDATLAS_DATA": fromSource.path], currentDirectory: "/nonexistent")
        == fromSource)

    do {
      _ = try DataDirectory.locate(environment: ["CARDATLAS_DATA": "/nonexistent/data"])
      Issue.record("no error")
    } catch {
      #expect(error.description.contains("CARDATLAS_DATA is set but has no cities.csv"))
      #expect(error.description.contains("/nonexistent/data"))
    }
  }
}
