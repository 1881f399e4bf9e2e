import ArgumentParser
import CardAtlasApp
import Foundation
import Logging

struct Migrate: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Move an embedded store into an empty PostgreSQL + PostGIS database.",
    discussion: """
      Reads the store under --from (replaying what a crash left in its journal first), writes \
      every GEO member and string, every account with its sessions, resets and ID-token links \
      (and the usernames' key, so usernames stay), every card with its wallet entries, notice \
      settings and views (and the codes' key, so share codes stay), the exchanges, the pins \
      with their votes and photos, the documents and uploads with their bytes, and the venues \
      with their visits, dependants, favourites and exposure notices into --to's tables \
      (creating them), then reads them back and compares counts and checksums. The geocode \
      cache is not moved. Exits 1 if a check fails. Stop the server on --from first.
      """)

  @Option(help: "The embedded store's directory.") var from: String
  @Option(help: "The database, postgresql://user[:password]@host[:port]/db[?sslmode=...].")
  var to: String

  func run() async throws {
    var logger = Logger(label: "cardatlas")
    logger.logLevel = .warning
    let report = try await StoreTransfer.move(from: from, to: to, logger: logger)
    print("moved \(report.moved) in \(String(format: "%.1f", report.seconds)) s")
    print(
      "read back \(report.arrived): \(report.moved == report.arrived ? "the same" : "DIFFERENT")")
    for check in report.checks {
      print("moved \(check.moved)")
      print("read back \(check.arrived): \(check.same ? "the same" : "DIFFERENT")")
    }
    if report.cacheLeft > 0 {
      print("not moved: the geocode cache's \(report.cacheLeft) entries (filled again as asked)")
    }
    if !report.verified { throw ExitCode(1) }
  }
}
