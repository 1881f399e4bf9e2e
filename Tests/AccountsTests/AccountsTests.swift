import Accounts
import DomainTestSupport
import Foundation
import SQLiteDomainStorage
import Testing

/// The accounts' rules, in process on a temporary store: sign-up, sign-in, sessions and what a
/// password change does to them, and what survives a restart.
@Suite("Accounts in process")
struct AccountsTests {
  @Test("sign-up checks the email and password; a taken email answers alike and makes nothing")
  func signUp() async throws {
    let temporary = try TemporaryStore(migrations: SQLiteAccounts.migrations)
    let accounts = try await temporary.accounts().0
    let ana = try await answer {
      accounts.create(email: "Ana@Example.org", password: "secret1", address: "10.0.0.1", $0)
    }.get()
    #expect(ana.email == "Ana@Example.org" && !ana.isPro && ana.username.count == 6)
    let bad = await answer {
      accounts.create(email: "not an email", password: "secret1", address: "10.0.0.1", $0)
    }
    #expect(throws: AccountError.self) { try bad.get() }
    let short = await answer {
      accounts.create(email: "bo@example.org", password: "12345", address: "10.0.0.1", $0)
    }
    #expect(throws: AccountError.self) { try short.get() }
    // The same email, in another case: an account of the same shape, under another id, and
    // still one account, whose password is the first.
    let again = try await answer {
      accounts.create(email: "ana@example.org", password: "other11", address: "10.0.0.2", $0)
    }.get()
    #expect(again.id != ana.id && again.email == "ana@example.org")
    #expect(accounts.account(email: "ana@example.org")?.id == ana.id)
    let signedIn = await answer {
      accounts.signIn(email: "ana@example.org", password: "other11", address: "10.0.0.3", $0)
    }
    #expect(throws: AccountError.wrongCredentials) { try signedIn.get() }
  }

  @Test(
    "sign-in: a wrong password and an unknown email answer the same; sessions resume until the password changes"
  )
  func sessions() async throws {
    let temporary = try TemporaryStore(migrations: SQLiteAccounts.migrations)
    let accounts = try await temporary.accounts().0
    let ana = try await answer {
      accounts.create(email: "ana@example.org", password: "secret1", address: "10.0.0.1", $0)
    }.get()
    for (email, password) in [("ana@example.org", "wrong11"), ("nobody@example.org", "secret1")] {
      let refused = await answer {
        accounts.signIn(email: email, password: password, address: "10.0.0.1", $0)
      }
      #expect(throws: AccountError.wrongCredentials, "\(email)") { try refused.get() }
    }
    let phone = try await answer {
      accounts.openSession(
        email: "ana@example.org", password: "secret1", device: "phone", address: "10.0.0.1", $0)
    }.get()
    let laptop = try await answer {
      accounts.openSession(
        email: "ana@example.org", password: "secret1", device: "laptop", address: "10.0.0.1", $0)
    }.get()
    #expect(try accounts.resume(token: phone.token).get().account.id == ana.id)
    #expect(accounts.sessions(of: ana.id).count == 2)
    // Changed on the laptop: the phone's session ends, the laptop's stays.
    _ = try await answer {
      accounts.changePassword(
        account: ana.id, old: "secret1", new: "secret2", address: "10.0.0.1",
        keeping: laptop.sessionID, $0)
    }.get()
    #expect(throws: AccountError.invalidToken) { try accounts.resume(token: phone.token).get() }
    #expect(try accounts.resume(token: laptop.token).get().account.id == ana.id)
    let old = await answer {
      accounts.signIn(email: "ana@example.org", password: "secret1", address: "10.0.0.1", $0)
    }
    #expect(throws: AccountError.wrongCredentials) { try old.get() }
  }

  @Test("accounts and sessions are there after a restart")
  func restart() async throws {
    let temporary = try TemporaryStore(migrations: SQLiteAccounts.migrations)
    let before = try await temporary.accounts().0
    let ana = try await answer {
      before.create(email: "ana@example.org", password: "secret1", address: "10.0.0.1", $0)
    }.get()
    let session = try await answer {
      before.openSession(
        email: "ana@example.org", password: "secret1", device: nil, address: "10.0.0.1", $0)
    }.get()
    _ = try temporary.reopen()
    let after = try await temporary.accounts().0
    #expect(after.account(email: "ana@example.org")?.id == ana.id)
    #expect(after.account(ana.id)?.username == ana.username)
    #expect(try after.resume(token: session.token).get().account.id == ana.id)
    let signedIn = try await answer {
      after.signIn(email: "ana@example.org", password: "secret1", address: "10.0.0.1", $0)
    }.get()
    #expect(signedIn.account.id == ana.id)
  }

  @Test(
    "each write the accounts make is what a restart reads back: Pro, role, a new password, closed sessions, a decoy's used-up id, a deletion"
  )
  func everyWriteSurvivesARestart() async throws {
    let temporary = try TemporaryStore(migrations: SQLiteAccounts.migrations)
    let (before, ids) = try await temporary.accounts(signingUp: ["ana@x.org", "bo@x.org"])
    let (ana, bo) = (ids[0], ids[1])
    _ = try await answer { before.setPro(account: ana, true, $0) }.get()
    _ = try await answer { before.setRole(account: ana, .health, $0) }.get()
    var sessions: [Accounts.OpenedSession] = []
    for device in ["phone", "laptop", "tablet"] {
      sessions.append(
        try await answer {
          before.openSession(
            email: "ana@x.org", password: "secret1", device: device, address: "10.0.0.1", $0)
        }.get())
    }
    #expect(
      try await answer { before.closeSessions(of: ana, only: sessions[0].sessionID, $0) }
        .get() == 1)
    _ = try await answer {
      before.changePassword(
        account: ana, old: "secret1", new: "secret2", address: "10.0.0.1",
        keeping: sessions[2].sessionID, $0)
    }.get()
    // A decoy sign-up (a taken email) uses up an id as a real one would.
    let decoy = try await answer {
      before.create(email: "BO@x.org", password: "whatever1", address: "10.0.0.2", $0)
    }.get()
    try await answer {
      before.delete(account: bo, password: "secret1", address: "10.0.0.1", $0)
    }.get()

    _ = try temporary.reopen()
    let (after, _) = try await temporary.accounts()
    let reread = try #require(after.account(ana))
    #expect(reread.isPro && reread.role == .health)
    #expect(after.sessions(of: ana).map(\.device) == ["tablet"], "closed and revoked stay gone")
    #expect(try after.resume(token: sessions[2].token).get().account.id == ana)
    for gone in sessions.prefix(2) {
      #expect(throws: AccountError.invalidToken) { try after.resume(token: gone.token).get() }
    }
    let old = await answer {
      after.signIn(email: "ana@x.org", password: "secret1", address: "10.0.0.1", $0)
    }
    #expect(throws: AccountError.wrongCredentials) { try old.get() }
    #expect(
      try await answer {
        after.signIn(email: "ana@x.org", password: "secret2", address: "10.0.0.1", $0)
      }.get().account.id == ana)
    #expect(after.account(bo) == nil && after.account(email: "bo@x.org") == nil)
    // Neither the deleted account's id nor the decoy's is given again.
    let next = try await answer {
      after.create(email: "cy@x.org", password: "secret1", address: "10.0.0.1", $0)
    }.get()
    #expect(next.id > max(bo, decoy.id))
  }
}
