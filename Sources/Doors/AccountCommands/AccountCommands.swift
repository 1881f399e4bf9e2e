import Accounts
import Commands
import ErrorLines
import NIOCore
import RESP

/// ACCOUNT.*, SESSION.* and WHOAMI: each reads its arguments, calls `Accounts`, and answers
/// once the change is durable. The rules are in `Accounts`.
public struct AccountCommands: Sendable {
  let accounts: Accounts

  var all: [CommandSpec] {
    [
      CommandSpec("account.create", arity: 3, flags: .noAuth) { call in
        let (email, password) = (call.arguments.string(1), call.arguments.string(2))
        let address = call.session.client
        // The next command (an AUTH with these credentials) runs once the account exists.
        call.holdsConnection = true
        call.pending = { [accounts] answer in
          accounts.create(email: email, password: password, address: address) {
            answer($0.reply(AccountJSON.reply))
          }
        }
        return .null
      },
      CommandSpec("session.open", arity: -3, flags: .noAuth, run: openSession),
      CommandSpec("session.resume", arity: 2, flags: .noAuth) { call in
        switch accounts.resume(token: call.arguments.string(1)) {
        case .failure(let error): return error.reply
        case .success(let (account, sessionID, generation)):
          call.session.signIn(
            SignedInAccount(account: account.id, generation: generation, session: sessionID))
          call.server.sessionChanged(call.session)
          return AccountJSON.reply(account)
        }
      },
      CommandSpec("session.list", arity: 1, flags: .needsAccount) { call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        return json(
          accounts.sessions(of: account).map {
            SessionJSON($0, current: $0.id == call.session.accountSession)
          })
      },
      // SESSION.CLOSE [ALL | <id>]: this connection's session (signing it out), every session,
      // or one by its id (SESSION.LIST).
      CommandSpec("session.close", arity: -1, flags: .needsAccount) { call in
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        let args = call.arguments
        let all = args.count == 2 && args.is(1, "all")
        let byID = args.count == 2 && !all ? args.integer(1).map(Int64.init) : nil
        guard args.count == 1 || all || byID != nil else { return .error(RedisError.syntax) }
        let only = all ? nil : byID ?? call.session.accountSession
        if byID == nil || byID == call.session.accountSession {
          call.session.signOut()
          call.server.sessionChanged(call.session)
        }
        guard all || only != nil else { return .integer(0) }
        call.pending = { [accounts] answer in
          accounts.closeSessions(of: account, only: only) { answer($0.reply { .integer($0) }) }
        }
        return .null
      },
      CommandSpec("account.password", arity: 3, flags: .needsAccount) { call in
        guard let id = call.session.account else { return .error(RedisError.needsAccount) }
        let (old, new) = (call.arguments.string(1), call.arguments.string(2))
        let (address, keeping) = (call.session.client, call.session.accountSession)
        // One password check at a time per connection; this one stays signed in.
        call.holdsConnection = true
        call.pending = { [accounts] answer in
          accounts.changePassword(
            account: id, old: old, new: new, address: address, keeping: keeping
          ) { result in
            guard case .success(let generation) = result else {
              return answer(result.reply { _ in .null })
            }
            answer(.simpleString("OK")) { session in
              session.signIn(
                SignedInAccount(account: id, generation: generation, session: keeping))
            }
          }
        }
        return .null
      },
      CommandSpec("account.reset.request", arity: 2, flags: .noAuth) { call in
        let (email, address) = (call.arguments.string(1), call.session.client)
        call.pending = { [accounts] answer in
          accounts.requestReset(email: email, address: address) {
            answer($0.reply { .simpleString("OK") })
          }
        }
        return .null
      },
      CommandSpec("account.reset", arity: 3, flags: .noAuth) { call in
        let (token, password) = (call.arguments.string(1), call.arguments.string(2))
        call.pending = { [accounts] answer in
          accounts.reset(token: token, newPassword: password) {
            answer($0.reply { .simpleString("OK") })
          }
        }
        return .null
      },
      // ACCOUNT.DELETE <password>, or ACCOUNT.DELETE IDTOKEN google|apple <jwt> for an account
      // that signs in with a provider.
      CommandSpec("account.delete", arity: -2, flags: .needsAccount) { call in
        guard let id = call.session.account else { return .error(RedisError.needsAccount) }
        let args = call.arguments
        let byToken = args.count == 4 && args.is(1, "idtoken")
        guard args.count == 2 || byToken else { return .error(RedisError.syntax) }
        let address = call.session.client
        call.holdsConnection = true
        call.pending = { [accounts] answer in
          let deleted: Accounts.Done<Void> = { result in
            guard case .success = result else { return answer(result.reply { .null }) }
            answer(.simpleString("OK")) { session in session.signOut() }
          }
          if byToken {
            accounts.delete(
              account: id, provider: args.string(2).lowercased(), idToken: args.string(3), deleted)
          } else {
            accounts.delete(account: id, password: args.string(1), address: address, deleted)
          }
        }
        return .null
      },
      CommandSpec("account.pro", arity: 3) { call in
        guard let id = call.arguments.integer(1).map(Int64.init),
          let flag = call.arguments.integer(2), flag == 0 || flag == 1
        else { return .error(RedisError.syntax) }
        call.pending = { [accounts] answer in
          accounts.setPro(account: id, flag == 1) { answer($0.reply(AccountJSON.reply)) }
        }
        return .null
      },
      CommandSpec("account.role", arity: 3) { call in
        guard let id = call.arguments.integer(1).map(Int64.init),
          let role = Account.Role(rawValue: call.arguments.lowercased(2))
        else { return .error(RedisError.syntax) }
        call.pending = { [accounts] answer in
          accounts.setRole(account: id, role) { answer($0.reply(AccountJSON.reply)) }
        }
        return .null
      },
      CommandSpec("whoami", arity: 1, flags: .account) { call in
        guard let id = call.session.account else { return json(["admin": true]) }
        guard let account = accounts.account(id) else {
          call.session.signOut()
          return .error("NOAUTH the account no longer exists")
        }
        return AccountJSON.reply(account)
      },
    ]
  }

  /// SESSION.OPEN <email> <password> [<device>], or SESSION.OPEN IDTOKEN google|apple <jwt>
  /// [<device>]: signs the connection in and answers a token that signs in again later
  /// (SESSION.RESUME).
  private func openSession(_ call: inout Invocation) -> RESPValue {
    let args = call.arguments
    let byToken = args.is(1, "idtoken")
    let first = byToken ? 2 : 1
    guard args.count >= first + 2, args.count <= first + 3 else {
      return .error(RedisError.syntax)
    }
    let (name, secret) = (args.string(first), args.string(first + 1))
    let device = args.count == first + 3 ? args.string(first + 2) : nil
    let address = call.session.client
    call.holdsConnection = true
    call.pending = { [accounts] answer in
      let opened: Accounts.Done<Accounts.OpenedSession> = { result in
        switch result {
        case .failure(let error): answer(error.reply)
        case .success(let opened):
          answer(.bulkString(ByteBuffer(string: opened.token))) { session in
            session.signIn(
              SignedInAccount(
                account: opened.account.id, generation: opened.generation,
                session: opened.sessionID))
          }
        }
      }
      if byToken {
        accounts.openSession(
          provider: name.lowercased(), idToken: secret, device: device, opened)
      } else {
        accounts.openSession(
          email: name, password: secret, device: device, address: address, opened)
      }
    }
    return .null
  }
}

/// AUTH <email> <password> and HELLO's AUTH, through `Accounts.signIn`.
struct AccountsSignIn: AccountSignIn {
  let accounts: Accounts

  func signIn(
    email: String, password: String, address: String,
    _ done: @escaping @Sendable (Result<SignedInAccount, SignInRefused>) -> Void
  ) {
    accounts.signIn(email: email, password: password, address: address) { result in
      done(
        result.map { SignedInAccount(account: $0.account.id, generation: $0.generation) }
          .mapError { SignInRefused($0.message) })
    }
  }

  var revocations: Int { accounts.revocations }

  func isSignedIn(_ signedIn: SignedInAccount) -> Bool {
    accounts.isSignedIn(
      account: signedIn.account, generation: signedIn.generation, session: signedIn.session)
  }
}
