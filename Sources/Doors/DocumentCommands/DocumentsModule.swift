import CardCommands
import Documents

extension Documents {
  /// Private documents, as a module built on the accounts. `started` is handed the running
  /// `Documents`, for modules that ask it (EXPOSURE.REPORT: `positiveTest(of:)`).
  public static func module(
    _ configuration: Configuration = .init(),
    started: @escaping @Sendable (Documents) -> Void = { _ in }
  ) -> CardDomainModule {
    CardDomainModule(name: "documents", migrations: Documents.migrations) { domain in
      let documents = try Documents(
        store: domain.store, accounts: domain.accounts, configuration: configuration)
      started(documents)
      return DocumentCommands(documents: documents).all
    }
  }
}
