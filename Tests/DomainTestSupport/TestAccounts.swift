import Accounts
import SQLiteDomainStorage

extension TemporaryStore {
  /// The accounts on this store as the unit tests run them (a fast hash, no sign-up limit),
  /// with `emails` signed up, password `secret1`: their ids, in order. On a reopened store, the
  /// same accounts again.
  public func accounts(signingUp emails: [String] = []) async throws -> (Accounts, [Int64]) {
    var configuration = Accounts.Configuration()
    configuration.hasher = PasswordHasher(costLog2: 10)
    configuration.signUpsPerAddress = 0
    let accounts = try Accounts(
      storage: SQLiteAccounts(store), outbox: store.directory + "/outbox",
      configuration: configuration)
    var ids: [Int64] = []
    for email in emails {
      ids.append(
        try await answer {
          accounts.create(email: email, password: "secret1", address: "10.0.0.1", $0)
        }.get().id)
    }
    return (accounts, ids)
  }
}
