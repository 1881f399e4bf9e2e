import Accounts
import Commands
import ErrorLines
import RESP
import Venues

/// EXPOSURE (the admin's or a health authority's search), EXPOSURE.REPORT and EXPOSURE.MINE.
/// The rules are in `Venues`.
public struct ExposureCommands: Sendable {
  let venues: Venues
  let accounts: Accounts

  public init(venues: Venues, accounts: Accounts) {
    self.venues = venues
    self.accounts = accounts
  }

  public var all: [CommandSpec] {
    [
      // EXPOSURE <accountId> FROM <t> TO <t>: the admin (no account signed in) or an account
      // with the health role.
      CommandSpec("exposure", arity: 6, flags: .account) { [venues, accounts] call in
        guard let subject = call.arguments.integer(1).map(Int64.init) else {
          return .error(VenueError.notFound("no such account").message)
        }
        let window: Window
        switch Window.parse(call.arguments, from: 2, count: false) {
        case .failure(let error): return .error(error.message)
        case .success(let w): window = w
        }
        guard let from = window.from, let to = window.to else { return .error(RedisError.syntax) }
        let requester: Venues.Requester = call.session.account.map { .account($0) } ?? .admin
        return venues.exposures(by: requester, of: subject, from: from, to: to).reply {
          VenueJSON.array($0.map { VenueJSON.exposure($0, venues, accounts) })
        }
      },
      CommandSpec("exposure.report", arity: 1, flags: [.needsAccount, .write]) { [venues] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        call.pending = { answer in
          venues.report(account: account) { answer($0.reply { .integer($0) }) }
        }
        return .null
      },
      CommandSpec("exposure.mine", arity: 1, flags: .needsAccount) { [venues] call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        return VenueJSON.array(
          venues.notices(account: account).map { VenueJSON.notice($0, venues) })
      },
    ]
  }
}
