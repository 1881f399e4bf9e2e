import Keyspace
import RESP

/// Runs commands as Redis 7.0's `processCommand` does: look the command up, check its arity,
/// check authentication, then run it.
public final class CommandProcessor: Sendable {
  public let keyspace: Keyspace
  let environment: ServerEnvironment
  let table: [String: CommandSpec]
  /// Every command's name, subcommands included, by `Outcome.commandID`.
  public let commandNames: [String]

  public init(keyspace: Keyspace, environment: ServerEnvironment) {
    self.keyspace = keyspace
    self.environment = environment
    var names: [String] = []
    func numbered(_ spec: CommandSpec) -> CommandSpec {
      var spec = spec
      spec.id = names.count
      names.append(spec.name)
      spec.subcommands = spec.subcommands.mapValues(numbered)
      return spec
    }
    var table: [String: CommandSpec] = [:]
    for spec in CommandTable.all { table[spec.name] = numbered(spec) }
    self.table = table
    commandNames = names
  }

  /// Runs one command for a connection. `arguments` is never empty.
  public func execute(_ arguments: Arguments, session: inout Session) -> Outcome {
    guard var spec = table[arguments.lowercased(0)] else {
      return Outcome(reply: .error(RedisError.unknownCommand(arguments)))
    }
    if !spec.subcommands.isEmpty, arguments.count >= 2 {
      guard let sub = spec.subcommands[arguments.lowercased(1)] else {
        return Outcome(reply: .error(RedisError.unknownSubcommand(arguments)))
      }
      spec = sub
    }
    var outcome: Outcome
    if !spec.acceptsArgumentCount(arguments.count) {
      outcome = Outcome(reply: .error(RedisError.arity(spec.name)))
    } else if !session.authenticated && !spec.flags.contains(.noAuth) {
      outcome = Outcome(reply: .error(RedisError.noAuth))
    } else {
      var invocation = Invocation(
        arguments: arguments, session: session, keyspace: keyspace, environment: environment)
      outcome = Outcome(reply: spec.run(&invocation))
      outcome.changes = invocation.changes
      outcome.close = invocation.close
      outcome.deferred = invocation.deferred
      session = invocation.session
    }
    outcome.command = spec.name
    outcome.commandID = spec.id
    return outcome
  }
}
