import Commands
import Datasets
import Dispatch
import Keyspace
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// `serve --demo`: on first start (an empty store), the world's cities from `data/` as the GEO
/// key `cities`, so a newcomer's first GEOSEARCH finds something.
enum DemoData {
  static let key = "cities"

  static func loadIfEmpty(
    into processor: CommandProcessor, logger: Logger
  ) throws {
    let empty = processor.keyspace.read { dbs in
      (0..<Keyspace.databaseCount).allSatisfy { dbs[$0].count == 0 }
    }
    guard empty else { return }
    let catalog = try CityCatalog.standard()
    var session = Session(id: 0, authenticated: true)
    var seen = Set<String>()
    let failure = NIOLockedValueBox<Error?>(nil)
    let done = DispatchGroup()
    var batch: [String] = []
    func flush() {
      guard !batch.isEmpty else { return }
      let args = Arguments((["GEOADD", key] + batch).map { ByteBuffer(string: $0) })
      let outcome = processor.execute(args, session: &session)
      batch = []
      guard !outcome.commits.isEmpty else { return }
      done.enter()
      Commit.whenAll(outcome.commits) { result in
        if case .failure(let error) = result { failure.withLockedValue { $0 = error } }
        done.leave()
      }
    }
    for city in catalog.cities {
      let member = "\(city.name), \(city.country)"
      guard seen.insert(member).inserted else { continue }
      batch += [String(city.longitude), String(city.latitude), member]
      if batch.count >= 3000 { flush() }
    }
    flush()
    done.wait()
    if let error = failure.withLockedValue({ $0 }) { throw error }
    logger.info("loaded the demo data", metadata: ["key": "\(key)", "members": "\(seen.count)"])
  }
}
