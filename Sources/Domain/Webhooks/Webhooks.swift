import Dispatch
import Foundation
import Logging
import NIOConcurrencyHelpers
import Synchronization

/// The server's webhooks: their definitions and undelivered events in the outbox, and a runner
/// delivering each hook's. What feeds a hook (fences whose names match its pattern) is the
/// caller's to route: `enqueue` takes events already addressed to hooks.
public final class Webhooks: Sendable {
  public let rules: HookAddressRules
  /// The most hooks the server holds.
  public let limit: Int
  /// Events one hook may have waiting; past it new ones are dropped, and counted.
  public let pendingLimit: Int
  private let outbox: any HookOutbox
  private let runners = NIOLockedValueBox<[String: HookRunner]>([:])
  private let count = Atomic<Int>(0)
  private let changes = Atomic<Int>(0)
  private let logger: Logger

  /// Starts delivering what `outbox` holds.
  public init(
    outbox: any HookOutbox, rules: HookAddressRules, limit: Int = 1_000,
    pendingLimit: Int = 1_000_000, logger: Logger
  ) throws {
    self.rules = rules
    self.limit = limit
    self.pendingLimit = pendingLimit
    self.logger = logger
    self.outbox = outbox
    let counts = try outbox.counts()
    for hook in try outbox.hooks() {
      let (pending, dead) = counts[hook.name] ?? (0, 0)
      run(hook, counters: HookCounters(pending: pending, dead: dead))
    }
  }

  /// Starts (or restarts, keeping its counters) the hook's runner.
  private func run(_ hook: Hook, counters: HookCounters) {
    let target: HookAddressRules.Target
    switch rules.target(of: hook.url) {
    case .success(let checked): target = checked
    case .failure(let refusal):
      // Set under other rules (the server restarted without --hooks-allow-insecure): its
      // events wait, and each try fails with the reason, until it is set again.
      logger.warning("hook \(hook.name): \(refusal)")
      target = HookAddressRules.Target(host: "", port: 0, secure: true)
    }
    let runner = HookRunner(
      hook: hook, target: target, rules: rules, outbox: outbox, counters: counters)
    let old = runners.withLockedValue { runners in
      defer { runners[hook.name] = runner }
      return runners[hook.name]
    }
    old?.stop()
    count.store(runners.withLockedValue { $0.count }, ordering: .relaxed)
    changes.add(1, ordering: .relaxed)
    runner.start()
  }

  // MARK: Hooks

  public enum SetError: Error, Equatable {
    case url(String)
    case full(Int)
    case store(String)
  }

  /// Sets (or replaces) a hook; its waiting events stay, and go to its new URL. A name that
  /// resolves to a private address now is refused now (it is checked again before each
  /// connection); the lookup runs off the caller's thread.
  public func set(_ hook: Hook, done: @escaping @Sendable (Result<Void, SetError>) -> Void) {
    let target: HookAddressRules.Target
    switch rules.target(of: hook.url) {
    case .success(let checked): target = checked
    case .failure(let refusal): return done(.failure(.url(refusal.description)))
    }
    DispatchQueue.global().async { [self] in
      if case .failure(let refusal) = rules.resolve(target), refusal.inside {
        return done(.failure(.url(refusal.description)))
      }
      keep(hook, done: done)
    }
  }

  private func keep(_ hook: Hook, done: @escaping @Sendable (Result<Void, SetError>) -> Void) {
    let counters = runners.withLockedValue { $0[hook.name]?.counters }
    if counters == nil, count.load(ordering: .relaxed) >= limit {
      return done(.failure(.full(limit)))
    }
    outbox.save(hook) { [self] result in
      switch result {
      case .success:
        run(hook, counters: counters ?? HookCounters(pending: 0, dead: 0))
        done(.success(()))
      case .failure(let error): done(.failure(.store("\(error)")))
      }
    }
  }

  /// Removes a hook and its events; false if there was none.
  public func delete(_ name: String, done: @escaping @Sendable (Result<Bool, SetError>) -> Void) {
    guard let runner = runners.withLockedValue({ $0.removeValue(forKey: name) }) else {
      return done(.success(false))
    }
    runner.stop()
    count.store(runners.withLockedValue { $0.count }, ordering: .relaxed)
    changes.add(1, ordering: .relaxed)
    outbox.delete(name) { done($0.map { true }.mapError { .store("\($0)") }) }
  }

  public func hook(_ name: String) -> (Hook, HookCounters.Snapshot)? {
    runners.withLockedValue { $0[name] }.map { ($0.hook, $0.counters.snapshot) }
  }

  func runner(_ name: String) -> HookRunner? { runners.withLockedValue { $0[name] } }

  public func hooks() -> [Hook] {
    runners.withLockedValue { $0.values.map(\.hook) }.sorted { $0.name < $1.name }
  }

  public var isEmpty: Bool { count.load(ordering: .relaxed) == 0 }

  /// Changes at each hook set or removed: routes cached by the caller are stale once it moves.
  public var generation: Int { changes.load(ordering: .relaxed) }

  // MARK: Events

  /// Keeps the events (payload: the JSON the hook's receiver gets as `event`) and hands them to
  /// their hooks' runners; `done` runs once they are durable. Events for a hook with
  /// `pendingLimit` waiting are dropped (counted), as are those for a hook just removed.
  public func enqueue(
    _ events: [(hook: String, payload: Data)],
    done: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    let (kept, runnersByHook) = runners.withLockedValue { runners in
      var kept: [(hook: String, payload: Data)] = []
      kept.reserveCapacity(events.count)
      var chosen: [String: HookRunner] = [:]
      for event in events {
        guard let runner = chosen[event.hook] ?? runners[event.hook] else { continue }
        chosen[event.hook] = runner
        if runner.counters.pending >= pendingLimit {
          runner.counters.dropped(1)
          continue
        }
        runner.counters.added(1)
        kept.append(event)
      }
      return (kept, chosen)
    }
    guard !kept.isEmpty else { return done(.success(())) }
    let created = HookRunner.now()
    outbox.append(kept, created: created) { result in
      switch result {
      case .success(let ids):
        var offers: [String: [OutboxEvent]] = [:]
        for (event, id) in zip(kept, ids) {
          offers[event.hook, default: []].append(
            OutboxEvent(
              id: id, hook: event.hook, payload: event.payload, created: created, attempts: 0,
              due: created))
        }
        for (hook, events) in offers { runnersByHook[hook]?.offer(events) }
        done(.success(()))
      case .failure(let error):
        for event in kept { runnersByHook[event.hook]?.counters.added(-1) }
        done(.failure(error))
      }
    }
  }

  /// Up to `count` of the hook's dead letters, oldest first; nil if there is no such hook.
  public func deadLetters(_ hook: String, count: Int) throws -> [OutboxEvent]? {
    guard runners.withLockedValue({ $0[hook] }) != nil else { return nil }
    return try outbox.dead(hook, limit: count)
  }

  /// Puts dead letters back to be delivered (`ids` nil: all the hook's), with their tries anew.
  public func replay(
    _ hook: String, ids: [Int64]?, done: @escaping @Sendable (Result<Int, any Error>) -> Void
  ) {
    guard let runner = runners.withLockedValue({ $0[hook] }) else { return done(.success(0)) }
    outbox.replay(hook, ids: ids, now: HookRunner.now()) { result in
      if case .success(let count) = result, count > 0 {
        runner.counters.replayed(count)
        runner.rescan()
      }
      done(result)
    }
  }

  /// INFO's hooks section: totals, then one line per hook.
  public func report() -> [(String, String)] {
    let all = runners.withLockedValue { $0.values.map { ($0.hook.name, $0.counters.snapshot) } }
      .sorted { $0.0 < $1.0 }
    var totals = HookCounters.Snapshot()
    for (_, s) in all {
      totals.delivered += s.delivered
      totals.retried += s.retried
      totals.failed += s.failed
      totals.dropped += s.dropped
      totals.pending += s.pending
      totals.dead += s.dead
    }
    var lines: [(String, String)] = [
      ("hooks", "\(all.count)"), ("hook_events_delivered", "\(totals.delivered)"),
      ("hook_events_retried", "\(totals.retried)"), ("hook_events_failed", "\(totals.failed)"),
      ("hook_events_dropped", "\(totals.dropped)"), ("hook_events_pending", "\(totals.pending)"),
      ("hook_dead_letters", "\(totals.dead)"),
    ]
    for (name, s) in all {
      lines.append(
        (
          "hook:\(name)",
          "delivered=\(s.delivered),retried=\(s.retried),failed=\(s.failed),"
            + "dropped=\(s.dropped),pending=\(s.pending),dead=\(s.dead),"
            + "latency_p50_ms=\(s.latencyP50),latency_p99_ms=\(s.latencyP99)"
        ))
    }
    return lines
  }

  /// Stops every runner (the server is stopping).
  public func shutdown() {
    for runner in runners.withLockedValue({ $0.values }) { runner.stop() }
  }
}
