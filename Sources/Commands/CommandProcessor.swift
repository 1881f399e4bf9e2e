import Keyspace
import RESP

/// Runs commands as Redis 7.0's `processCommand` does: look the command up, check its arity,
/// check authentication, then run it.
public final class CommandProcessor: Sendable {
  public let keyspace: Keyspace
  let environment: ServerEnvironment
  private let table: [Keyword: Entry]
  /// Every command's name, subcommands included, by `Outcome.commandID`.
  public let commandNames: [String]

  /// A command as looked up: shared, so that finding one copies no fields.
  private final class Entry: Sendable {
    let spec: CommandSpec
    let id: Int
    let subcommands: [Keyword: Entry]

    init(_ spec: CommandSpec, names: inout [String]) {
      self.spec = spec
      id = names.count
      names.append(spec.name)
      var subcommands: [Keyword: Entry] = [:]
      for (name, sub) in spec.subcommands { subcommands[Keyword(name)] = Entry(sub, names: &names) }
      self.subcommands = subcommands
    }
  }

  public init(keyspace: Keyspace, environment: ServerEnvironment) {
    self.keyspace = keyspace
    self.environment = environment
    var names: [String] = []
    var table: [Keyword: Entry] = [:]
    for spec in CommandTable.all { table[Keyword(spec.name)] = Entry(spec, names: &names) }
    self.table = table
    commandNames = names
  }

  /// Runs one command for a connection. `arguments` is never empty.
  public func execute(_ arguments: Arguments, session: inout Session) -> Outcome {
    guard var entry = table[arguments.keyword(0)] else {
      return Outcome(reply: .error(RedisError.unknownCommand(arguments)))
    }
    if !entry.subcommands.isEmpty, arguments.count >= 2 {
      guard let sub = entry.subcommands[arguments.keyword(1)] else {
        return Outcome(reply: .error(RedisError.unknownSubcommand(arguments)))
      }
      entry = sub
    }
    // Read through the entry: a copy of the spec would retain each of its fields.
    var outcome: Outcome
    if !entry.spec.acceptsArgumentCount(arguments.count) {
      outcome = Outcome(reply: .error(RedisError.arity(entry.spec.name)))
    } else if !session.authenticated && !entry.spec.flags.contains(.noAuth) {
      outcome = Outcome(reply: .error(RedisError.noAuth))
    } else {
      var invocation = Invocation(
        arguments: arguments, session: session, keyspace: keyspace, environment: environment)
      outcome = Outcome(reply: entry.spec.run(&invocation))
      outcome.changes = invocation.changes
      outcome.close = invocation.close
      outcome.deferred = invocation.deferred
      session = invocation.session
    }
    outcome.commandID = entry.id
    return outcome
  }
}
