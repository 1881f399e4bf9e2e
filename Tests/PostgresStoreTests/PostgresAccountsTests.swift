import Accounts
import Foundation
import PostgresDomainStorage
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import Testing

/// `PostgresAccounts` under `Accounts`, two stores on one database standing for two nodes that
/// have not yet heard of each other's writes.
@Suite("Accounts over PostgreSQL", .serialized)
struct PostgresAccountsTests {
  static func accounts(_ database: TestDatabase, _ directory: String) async throws -> Accounts {
    let store = try await PostgresStore(
      location: database.location, migrations: PostgresAccounts.migrations,
      logger: TestDatabase.logger)
    var settings = Accounts.Configuration()
    settings.hasher = PasswordHasher(costLog2: 10)
    return try Accounts(
      storage: try await PostgresAccounts(store: store, logger: TestDatabase.logger),
      outbox: directory, configuration: settings)
  }

  static func create(_ accounts: Accounts, _ email: String, _ password: String) async throws
    -> Account
  {
    try await withCheckedThrowingContinuation { continuation in
      accounts.create(email: email, password: password, address: "10.0.0.1") {
        continuation.resume(with: $0)
      }
    }
  }

  @Test(
    "an email given an account by one node first: the other's sign-up is refused by the database, answered as a taken email is, and forgotten; ids come from separate blocks"
  )
  func emailTakenOnAnotherNode() async throws {
    let database = try await TestDatabase.make()
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-accounts-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let first = try await Self.accounts(database, directory)
    let second = try await Self.accounts(database, directory)
    let won = try await Self.create(first, "ana@x.org", "secret-one")
    // The second node has not applied the first's insert: it makes its own, and the database
    // refuses it.
    #expect(second.account(email: "ana@x.org") == nil)
    let lost = try await Self.create(second, "ANA@x.org", "secret-two")
    #expect(lost.id != won.id && lost.email == "ANA@x.org")
    #expect(second.account(email: "ana@x.org") == nil, "the refused account is forgotten")
    #expect(second.account(lost.id) == nil)
    let rows = try await database.connect { connection in
      try await connection.query("SELECT id, email FROM accounts", logger: TestDatabase.logger)
        .collect().map { try $0.decode((Int64, String).self) }
    }
    #expect(rows.count == 1 && rows.first?.0 == won.id && rows.first?.1 == "ana@x.org")
    // Ids from blocks a node's size apart: the two nodes never give the same one.
    let next = try await Self.create(second, "bo@x.org", "secret-two")
    #expect(abs(next.id - won.id) >= 1_000 - 2)
    await database.drop()
  }
}
