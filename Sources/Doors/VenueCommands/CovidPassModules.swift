import CardCommands
import DocumentCommands
import Documents
import Foundation
import Synchronization
import Venues

extension CardDomainModule {
  /// The venues and the private documents together (CovidPass): EXPOSURE.REPORT asks the
  /// documents for the reporter's latest positive test.
  public static func venuesAndDocuments(
    _ venues: Venues.Configuration = .init(), documents: Documents.Configuration = .init()
  ) -> [CardDomainModule] {
    let running = RunningDocuments()
    var venues = venues
    venues.positiveTest = { running.positiveTest(of: $0) }
    return [.venues(venues), Documents.module(documents, started: running.start)]
  }
}

/// The documents module once the server has started it.
private final class RunningDocuments: Sendable {
  private let documents = Mutex<Documents?>(nil)

  func start(_ started: Documents) { documents.withLock { $0 = started } }

  func positiveTest(of account: Int64) -> Date? {
    documents.withLock { $0 }?.positiveTest(of: account)
  }
}
