import Keyspace
import RESP
import RateLimits

/// What the command layer knows of one connection.
public struct Session: Sendable {
  public let id: Int
  /// The selected database (SELECT).
  public var db = 0
  public var protocolVersion: RESPProtocolVersion = .resp2
  /// The admin password was given (or none is configured): Redis's and the admin's commands
  /// run, unless an account is signed in.
  public var authenticated: Bool
  /// The account signed in on this connection: it runs the domain commands, as itself, and
  /// nothing of the keyspace.
  public var account: Int64?
  /// The stored session (SESSION.OPEN, SESSION.RESUME) the account signed in with, if any.
  public var accountSession: Int64?
  /// The account's sign-in generation when this connection signed in: a password change,
  /// reset or deletion moves it on, and signs this connection out.
  public var accountGeneration = 0
  /// `AccountSignIn.revocations` when this sign-in was last found still valid.
  var checkedRevocations = -1
  /// Channels and patterns subscribed to: while any, a RESP2 connection runs only the
  /// commands of Redis's subscribed context.
  public var subscriptions = 0
  /// CLIENT SETNAME.
  public var name: String?
  /// The client's address and port (CLIENT LIST).
  public var address: String
  /// What limits per address count on (`ClientAddress.key`): the address without its port.
  public var client: String

  public init(id: Int, authenticated: Bool, address: String = "", client: String? = nil) {
    self.id = id
    self.authenticated = authenticated
    self.address = address
    self.client = client ?? address
  }

  /// Signs the connection in as an account.
  public mutating func signIn(_ signedIn: SignedInAccount) {
    account = signedIn.account
    accountGeneration = signedIn.generation
    accountSession = signedIn.session
    checkedRevocations = -1
  }

  public mutating func signOut() {
    account = nil
    accountSession = nil
  }
}

/// An account signed in: its id, its sign-in generation then, and the stored session used.
public struct SignedInAccount: Sendable {
  public let account: Int64
  public let generation: Int
  public let session: Int64?

  public init(account: Int64, generation: Int, session: Int64? = nil) {
    self.account = account
    self.generation = generation
    self.session = session
  }
}

/// The result of one command.
public struct Outcome: Sendable {
  public var reply: RESPValue
  /// The writes to see durable before the reply may be sent.
  public var commits: [Commit] = []
  /// Close the connection once the reply is written (QUIT).
  public var close = false
  /// Work to run off the event loop, whose result replaces `reply` (BACKUP).
  public var deferred: (@Sendable () -> RESPValue)?
  /// A reply that comes later, in place of `reply`: the connection keeps its place among the
  /// replies and calls this at once, in command order, with where to send the reply.
  public var pending: PendingReply?
  /// The connection runs no later command until `pending` has answered.
  public var holdsConnection = false
  /// The bytes `pending` will hold until its reply is taken: see `Invocation.replyBytes`.
  public var replyBytes = 0
  /// The command's number in `CommandProcessor.commandNames`; nil for an unknown command.
  public var commandID: Int?

  public init(reply: RESPValue) { self.reply = reply }

  /// Hands the reply's storage back for reuse once its bytes have been copied out: the next hot
  /// reply on this thread is then written over it instead of into a new allocation.
  public consuming func recycle() { ReplyBuffers.recycle(reply) }
}

/// Starts the work of a command whose reply comes later, and hands the reply to `answer` once
/// it is ready, on any thread. Called in command order, so writes it queues keep that order.
public typealias PendingReply = @Sendable (_ answer: Responder) -> Void

/// A change to a connection's session that a later reply brings (a sign-in).
public typealias SessionUpdate = @Sendable (inout Session) -> Void

/// Where a later reply goes: to its place among the connection's replies.
public struct Responder: Sendable {
  private let deliver: @Sendable (RESPValue, SessionUpdate?) -> Void

  public init(_ deliver: @escaping @Sendable (RESPValue, SessionUpdate?) -> Void) {
    self.deliver = deliver
  }

  public func callAsFunction(_ reply: RESPValue) { deliver(reply, nil) }

  /// Answers, and changes the connection's session as the reply arrives. Only for a command
  /// that holds its connection (`Invocation.holdsConnection`): no later command has run yet.
  public func callAsFunction(_ reply: RESPValue, session update: @escaping SessionUpdate) {
    deliver(reply, update)
  }
}

/// The server-wide things some commands report or change: INFO, CLIENT, CONFIG, BACKUP.
public protocol ServerEnvironment: AnyObject, Sendable {
  /// The admin password (`--requirepass`), if any.
  var requirePassword: String? { get }
  /// The text of INFO for these sections (lower-cased; empty means the default set).
  func info(sections: [String]) -> String
  /// CLIENT LIST's lines, one per connection.
  func clientList() -> String
  /// CLIENT INFO's line for one connection.
  func clientInfo(id: Int) -> String
  /// Configuration parameters whose names match the glob pattern.
  func configGet(_ pattern: String) -> [(String, String)]
  /// Sets a parameter; returns an error text when it cannot.
  func configSet(_ name: String, _ value: String) -> String?
  /// Resets the statistics (CONFIG RESETSTAT).
  func resetStatistics()
  /// Makes a consistent copy of the store at `path`; blocks until done.
  func backup(to path: String) throws
  /// Records a connection's name and selected database for CLIENT LIST.
  func sessionChanged(_ session: Session)
  /// Who hears which channels (SUBSCRIBE, PUBLISH).
  var pubsub: PubSubHub { get }
}
