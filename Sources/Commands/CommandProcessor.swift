import Keyspace
import RESP

/// Runs commands as Redis 7.0's `processCommand` does: look the command up, check its arity,
/// check authentication, then run it.
public final class CommandProcessor: Sendable {
  public let keyspace: Keyspace
  let environment: ServerEnvironment
  /// Entries lent without a retain (`entries` keeps them): the event-loop threads would
  /// otherwise write each entry's shared reference count on every command.
  private let table: [Keyword: Unmanaged<Entry>]
  private let entries: [Entry]
  /// Every command's name, subcommands included, by `Outcome.commandID`.
  public let commandNames: [String]
  /// The commands answered: Redis's, then those the processor was given.
  let specs: [CommandSpec]

  /// A command as looked up: shared, so that finding one copies no fields.
  private final class Entry: Sendable {
    let spec: CommandSpec
    let id: Int
    let subcommands: [Keyword: Unmanaged<Entry>]

    init(_ spec: CommandSpec, names: inout [String], entries: inout [Entry]) {
      self.spec = spec
      id = names.count
      names.append(spec.name)
      var subcommands: [Keyword: Unmanaged<Entry>] = [:]
      for (name, sub) in spec.subcommands {
        let entry = Entry(sub, names: &names, entries: &entries)
        entries.append(entry)
        subcommands[Keyword(name)] = .passUnretained(entry)
      }
      self.subcommands = subcommands
    }
  }

  /// Answers Redis's commands and `commands`, which other modules bring; a name may be used
  /// once.
  public init(
    keyspace: Keyspace, environment: ServerEnvironment, commands: [CommandSpec] = []
  ) {
    self.keyspace = keyspace
    self.environment = environment
    specs = CommandTable.all + commands
    var names: [String] = []
    var entries: [Entry] = []
    var table: [Keyword: Unmanaged<Entry>] = [:]
    for spec in specs {
      let entry = Entry(spec, names: &names, entries: &entries)
      entries.append(entry)
      let previous = table.updateValue(.passUnretained(entry), forKey: Keyword(spec.name))
      precondition(previous == nil, "two commands named \(spec.name)")
    }
    self.table = table
    self.entries = entries
    commandNames = names
  }

  /// Runs one command for a connection. `arguments` is never empty.
  public func execute(_ arguments: Arguments, session: inout Session) -> Outcome {
    guard var lent = table[arguments.keyword(0)] else {
      return Outcome(reply: .error(RedisError.unknownCommand(arguments)))
    }
    if lent._withUnsafeGuaranteedRef({ !$0.subcommands.isEmpty }), arguments.count >= 2 {
      guard let sub = lent._withUnsafeGuaranteedRef({ $0.subcommands[arguments.keyword(1)] })
      else {
        return Outcome(reply: .error(RedisError.unknownSubcommand(arguments)))
      }
      lent = sub
    }
    return lent._withUnsafeGuaranteedRef { run($0, arguments, &session) }
  }

  private func run(_ entry: Entry, _ arguments: Arguments, _ session: inout Session) -> Outcome {
    // Read through the entry: a copy of the spec would retain each of its fields.
    var outcome: Outcome
    if !entry.spec.acceptsArgumentCount(arguments.count) {
      outcome = Outcome(reply: .error(RedisError.arity(entry.spec.name)))
    } else if !session.authenticated && !entry.spec.flags.contains(.noAuth) {
      outcome = Outcome(reply: .error(RedisError.noAuth))
    } else {
      var invocation = Invocation(
        arguments: arguments, session: session, keyspace: .passUnretained(keyspace),
        environment: environment, processor: self)
      outcome = Outcome(reply: entry.spec.run(&invocation))
      outcome.changes = invocation.changes
      outcome.close = invocation.close
      outcome.deferred = invocation.deferred
      outcome.pending = invocation.pending
      session = invocation.session
    }
    outcome.commandID = entry.id
    return outcome
  }
}
