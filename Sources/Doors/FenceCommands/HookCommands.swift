import Commands
import Foundation
import Keyspace
import NIOCore
import RESP
import Webhooks

/// HOOK.*: the admin's webhooks, fed by the fences whose names match their pattern
/// (docs/PROTOCOL.md, "Webhooks"). Accounts get NOPERM.
struct HookCommands: Sendable {
  let webhooks: Webhooks

  var all: [CommandSpec] {
    [
      // HOOK.SET <name> <url> [FENCES <pattern>] [ATTEMPTS n] [BACKOFF ms] [TIMEOUT ms]
      //   [CONCURRENCY n] [BATCH n] [NEWSECRET]: the hook's signing secret.
      CommandSpec("hook.set", arity: -3) { call in
        let args = call.arguments
        let name = args.string(1)
        guard (1...128).contains(name.utf8.count), !name.contains(where: \.isWhitespace) else {
          return .error("ERR a hook's name is 1 to 128 bytes, without spaces")
        }
        let old = webhooks.hook(name)?.0
        var hook = Hook(name: name, url: args.string(2), fences: old?.fences ?? "*")
        if let old { hook.secret = old.secret }
        var i = 3
        while i < args.count {
          let word = args.lowercased(i)
          if word == "newsecret" {
            hook.secret = Hook.newSecret()
            i += 1
            continue
          }
          guard i + 1 < args.count else { return .error(RedisError.syntax) }
          if word == "fences" {
            hook.fences = args.string(i + 1)
            i += 2
            continue
          }
          let option: (WritableKeyPath<Hook, Int>, ClosedRange<Int>)
          switch word {
          case "attempts": option = (\.attempts, Hook.attemptsRange)
          case "backoff": option = (\.backoffMilliseconds, Hook.backoffRange)
          case "timeout": option = (\.timeoutMilliseconds, Hook.timeoutRange)
          case "concurrency": option = (\.concurrency, Hook.concurrencyRange)
          case "batch": option = (\.batch, Hook.batchRange)
          default: return .error(RedisError.syntax)
          }
          guard let value = args.integer(i + 1), option.1.contains(value) else {
            return .error(
              "ERR \(word.uppercased()) must be an integer from \(option.1.lowerBound) to "
                + "\(option.1.upperBound)")
          }
          hook[keyPath: option.0] = value
          i += 2
        }
        let set = hook
        call.pending = { answer in
          webhooks.set(set) { result in
            switch result {
            case .success: answer(.bulkString(ByteBuffer(string: set.secret)))
            case .failure(.url(let why)): answer(.error("ERR \(why)"))
            case .failure(.full(let limit)):
              answer(.error("ERR the server holds \(limit) hooks, its most (HOOK.DEL some first)"))
            case .failure(.store(let why)): answer(.error("ERR the hook could not be kept: \(why)"))
            }
          }
        }
        return .null
      },
      // HOOK.GET <name>: the hook as JSON, its secret and its metrics.
      CommandSpec("hook.get", arity: 2) { call in
        guard let (hook, metrics) = webhooks.hook(call.arguments.string(1)) else { return .null }
        return .json(Self.object(hook, metrics))
      },
      // HOOK.LIST [pattern]: the names, sorted.
      CommandSpec("hook.list", arity: -1) { call in
        let args = call.arguments
        guard args.count <= 2 else { return .error(RedisError.syntax) }
        let pattern = args.count == 2 ? args.bytes(1) : Array("*".utf8)
        return .array(
          webhooks.hooks().map(\.name).filter { globMatches(pattern, Array($0.utf8)) }.map {
            .bulkString(ByteBuffer(string: $0))
          })
      },
      // HOOK.DEL <name>: 1 if it was there; its waiting events and dead letters go with it.
      CommandSpec("hook.del", arity: 2) { call in
        let name = call.arguments.string(1)
        call.pending = { answer in
          webhooks.delete(name) { result in
            switch result {
            case .success(let found): answer(.integer(found ? 1 : 0))
            case .failure(let error): answer(.error("ERR the removal could not be kept: \(error)"))
            }
          }
        }
        return .null
      },
      // HOOK.DEAD <name> [COUNT n]: the dead letters, oldest first, each as JSON.
      CommandSpec("hook.dead", arity: -2) { call in
        let args = call.arguments
        var count = 100
        if args.count == 4, args.is(2, "count") {
          guard let n = args.integer(3), (1...HookOutboxLimits.deadLetters).contains(n) else {
            return .error("ERR COUNT must be an integer from 1 to \(HookOutboxLimits.deadLetters)")
          }
          count = n
        } else if args.count != 2 {
          return .error(RedisError.syntax)
        }
        do {
          guard let dead = try webhooks.deadLetters(args.string(1), count: count) else {
            return .error("ERR no such hook")
          }
          return .array(dead.map { .json(Self.object($0)) })
        } catch {
          return .error("ERR the dead letters could not be read: \(error)")
        }
      },
      // HOOK.REPLAY <name> [id …]: dead letters (all, or those) delivered again; how many.
      CommandSpec("hook.replay", arity: -2) { call in
        let args = call.arguments
        guard webhooks.hook(args.string(1)) != nil else { return .error("ERR no such hook") }
        var ids: [Int64]?
        if args.count > 2 {
          var chosen: [Int64] = []
          for i in 2..<args.count {
            guard let id = args.integer(i), id > 0 else {
              return .error("ERR an event id must be a positive integer")
            }
            chosen.append(Int64(id))
          }
          ids = chosen
        }
        let name = args.string(1)
        call.pending = { [ids] answer in
          webhooks.replay(name, ids: ids) { result in
            switch result {
            case .success(let count): answer(.integer(count))
            case .failure(let error): answer(.error("ERR the replay could not be kept: \(error)"))
            }
          }
        }
        return .null
      },
    ]
  }

  static func object(_ hook: Hook, _ metrics: HookCounters.Snapshot) -> [String: Any] {
    [
      "name": hook.name, "url": hook.url, "fences": hook.fences, "secret": hook.secret,
      "attempts": hook.attempts, "backoff_ms": hook.backoffMilliseconds,
      "timeout_ms": hook.timeoutMilliseconds, "concurrency": hook.concurrency,
      "batch": hook.batch,
      "metrics": [
        "delivered": metrics.delivered, "retried": metrics.retried, "failed": metrics.failed,
        "dropped": metrics.dropped, "pending": metrics.pending, "dead": metrics.dead,
        "latency_p50_ms": metrics.latencyP50, "latency_p99_ms": metrics.latencyP99,
        "latency_max_ms": metrics.latencyMax,
      ],
    ]
  }

  /// A dead letter: its id, tries, last error, when it was made, and the event.
  static func object(_ event: OutboxEvent) -> [String: Any] {
    [
      "id": event.id, "attempts": event.attempts, "error": event.error ?? "",
      "created": event.created,
      "event": (try? JSONSerialization.jsonObject(with: event.payload)) ?? [:],
    ]
  }
}
