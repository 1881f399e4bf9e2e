import AsyncHTTPClient
import DomainSupport
import Foundation
import Histogram
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// One hook's deliveries: `hook.concurrency` workers take its events in id order from a window
/// held in memory, POST them, and settle each in the outbox. The window holds at most
/// `windowSize` events (waiting, in flight, or waiting to be retried); the rest stay on disk
/// until there is room, so a receiver that is down costs the server disk, bounded, not memory.
final class HookRunner: Sendable {
  let hook: Hook
  private let target: HookAddressRules.Target
  private let rules: HookAddressRules
  private let outbox: any HookOutbox
  let counters: HookCounters

  static let windowSize = 1_024
  /// The longest wait between tries, Retry-After's included.
  static let longestWait: Int64 = 3_600_000
  /// A name's address is looked up again after this long (ms), and the connections made anew.
  static let resolveInterval: Int64 = 300_000
  /// A receiver's answer read, at most, then the connection is dropped.
  static let answerLimit = 64 * 1024

  private struct State {
    var ready: [OutboxEvent] = []
    /// Waiting to be tried again, soonest first.
    var later: [OutboxEvent] = []
    /// Every event taken from the outbox and not yet settled there.
    var held: Set<Int64> = []
    var mostHeld = 0
    /// Some waiting events are only on disk: the next worker with room loads them from
    /// `scanned` on, until it has seen past `spilledAbove`.
    var spilled = true
    var spilledAbove: Int64 = 0
    var scanned: Int64 = 0
    var loading = false
    /// Settled while a load was reading: the load's snapshot may still have them.
    var settledWhileLoading: Set<Int64> = []
    var waiters: [CheckedContinuation<Void, Never>] = []
    var timer: (due: Int64, task: Task<Void, Never>)?
    var client: (client: HTTPClient, resolvedAt: Int64)?
    var stopped = false
  }
  private let state = NIOLockedValueBox(State())

  init(
    hook: Hook, target: HookAddressRules.Target, rules: HookAddressRules, outbox: any HookOutbox,
    counters: HookCounters
  ) {
    self.hook = hook
    self.target = target
    self.rules = rules
    self.outbox = outbox
    self.counters = counters
  }

  static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

  /// The workers, timers and closings run on Dispatch's threads, not Swift's cooperative pool:
  /// something blocking that pool (a test's socket calls) would hold deliveries up.
  private static let executor = DispatchTaskExecutor.shared

  func start() {
    for _ in 0..<hook.concurrency {
      Task(executorPreference: Self.executor) { [self] in
        while let events = await next() {
          let outcome = await deliver(events)
          for event in events { settle(event, outcome) }
        }
      }
    }
  }

  /// The most events taken from the outbox and not yet settled at once: never more than
  /// `windowSize`.
  var mostHeld: Int { state.withLockedValue { $0.mostHeld } }

  /// Stops taking events (the ones in flight finish) and closes the connections.
  func stop() {
    let (waiters, client, timer) = state.withLockedValue { s in
      s.stopped = true
      defer { (s.waiters, s.client, s.timer) = ([], nil, nil) }
      return (s.waiters, s.client?.client, s.timer?.task)
    }
    timer?.cancel()
    for waiter in waiters { waiter.resume() }
    Self.close(client, after: hook.timeoutMilliseconds)
  }

  /// Events just made durable: into the window if it has room, otherwise left on disk.
  func offer(_ events: [OutboxEvent]) {
    let waiters = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
      for event in events {
        if !s.spilled, s.held.count < Self.windowSize {
          s.ready.append(event)
          s.held.insert(event.id)
          s.mostHeld = max(s.mostHeld, s.held.count)
          s.scanned = event.id
        } else {
          s.spilled = true
          s.spilledAbove = max(s.spilledAbove, event.id)
        }
      }
      return Self.wake(&s)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Dead letters put back: read again from the start of the outbox.
  func rescan() {
    let waiters = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
      s.spilled = true
      s.spilledAbove = max(s.spilledAbove, s.scanned)
      s.scanned = 0
      return Self.wake(&s)
    }
    for waiter in waiters { waiter.resume() }
  }

  private static func wake(_ s: inout State) -> [CheckedContinuation<Void, Never>] {
    defer { s.waiters = [] }
    return s.waiters
  }

  // MARK: Taking events

  private enum Step {
    case events([OutboxEvent])
    case load(after: Int64, room: Int)
    case wait
    case stop
  }

  /// The next events due (up to the hook's batch), waiting for one; nil once stopped.
  private func next() async -> [OutboxEvent]? {
    while true {
      let step = state.withLockedValue { s -> Step in
        if s.stopped { return .stop }
        promote(&s, now: Self.now())
        if !s.ready.isEmpty {
          let taken = Array(s.ready.prefix(hook.batch))
          s.ready.removeFirst(taken.count)
          return .events(taken)
        }
        if Self.shouldLoad(s) {
          s.loading = true
          return .load(after: s.scanned, room: Self.windowSize - s.held.count)
        }
        return .wait
      }
      switch step {
      case .events(let events): return events
      case .stop: return nil
      case .load(let after, let room): load(after: after, room: room)
      case .wait:
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
          let now = state.withLockedValue { s -> Bool in
            if s.stopped || !s.ready.isEmpty || Self.shouldLoad(s) { return true }
            s.waiters.append(waiter)
            return false
          }
          if now { waiter.resume() }
        }
      }
    }
  }

  /// Whether to read waiting events from disk: in large reads, once half the window is free,
  /// or sooner if nothing else is ready.
  private static func shouldLoad(_ s: State) -> Bool {
    s.spilled && !s.loading
      && (s.held.count <= windowSize / 2 || s.held.count < windowSize && s.ready.isEmpty)
  }

  private func load(after: Int64, room: Int) {
    let events = (try? outbox.pending(hook.name, after: after, limit: room)) ?? []
    let waiters = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
      s.loading = false
      defer { s.settledWhileLoading = [] }
      let now = Self.now()
      for event in events where !s.held.contains(event.id) {
        guard !s.settledWhileLoading.contains(event.id) else { continue }
        s.held.insert(event.id)
        s.mostHeld = max(s.mostHeld, s.held.count)
        if event.due > now { schedule(event, in: &s) } else { s.ready.append(event) }
      }
      if let last = events.last { s.scanned = max(s.scanned, last.id) }
      if events.count < room, s.scanned >= s.spilledAbove { s.spilled = false }
      return Self.wake(&s)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Moves the retries now due to the ready ones.
  private func promote(_ s: inout State, now: Int64) {
    while let first = s.later.first, first.due <= now { s.ready.append(s.later.removeFirst()) }
  }

  private func schedule(_ event: OutboxEvent, in s: inout State) {
    let at = s.later.firstIndex { $0.due > event.due } ?? s.later.endIndex
    s.later.insert(event, at: at)
    arm(&s)
  }

  /// A timer for the soonest retry, unless one runs for it or sooner.
  private func arm(_ s: inout State) {
    guard let due = s.later.first?.due, s.timer.map({ due < $0.due }) ?? true else { return }
    s.timer?.task.cancel()
    let wait = max(0, due - Self.now())
    let task = Task(executorPreference: Self.executor) { [weak self] in
      try? await Task.sleep(for: .milliseconds(wait))
      guard !Task.isCancelled else { return }
      self?.timerFired()
    }
    s.timer = (due, task)
  }

  private func timerFired() {
    let waiters = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
      s.timer = nil
      guard !s.stopped else { return [] }
      promote(&s, now: Self.now())
      arm(&s)
      return Self.wake(&s)
    }
    for waiter in waiters { waiter.resume() }
  }

  // MARK: Delivering

  enum Outcome {
    case delivered
    /// Why, and the wait the receiver asked for (Retry-After), in ms.
    case failed(String, retryAfter: Int64?)
  }

  /// `{"event":<the fence's event>,"hook":…,"id":…}`, or for more than one
  /// `{"events":[{"event":…,"id":…},…],"hook":…}`: the id is the event's in the outbox, the
  /// same on every try and replay (the receiver's idempotency key).
  static func body(_ events: [OutboxEvent], hook: String) -> ByteBuffer {
    var out = ByteBuffer()
    out.reserveCapacity(events.reduce(hook.utf8.count + 32) { $0 + $1.payload.count + 40 })
    if events.count == 1 {
      out.writeString(#"{"event":"#)
      out.writeBytes(events[0].payload)
      out.writeString(#","hook":\#(quoted(hook)),"id":\#(events[0].id)}"#)
      return out
    }
    out.writeString(#"{"events":["#)
    for (i, event) in events.enumerated() {
      out.writeString(i == 0 ? #"{"event":"# : #",{"event":"#)
      out.writeBytes(event.payload)
      out.writeString(#","id":\#(event.id)}"#)
    }
    out.writeString(#"],"hook":\#(quoted(hook))}"#)
    return out
  }

  private func deliver(_ events: [OutboxEvent]) async -> Outcome {
    let started = Self.now()
    let deadline = started + Int64(hook.timeoutMilliseconds)
    let client: HTTPClient
    switch connection(now: started) {
    case .success(let open): client = open
    case .failure(let refusal): return .failed(refusal.description, retryAfter: nil)
    }
    let body = Self.body(events, hook: hook.name)
    var request = HTTPClientRequest(url: hook.url)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    request.headers.add(name: "User-Agent", value: "CardAtlas-Webhooks/1")
    if events.count == 1 {
      request.headers.add(name: "CardAtlas-Event-Id", value: "\(events[0].id)")
    }
    // A batch's: its most tried event's.
    let attempt = events.map(\.attempts).max()! + 1
    request.headers.add(name: "CardAtlas-Attempt", value: "\(attempt)")
    request.headers.add(
      name: HookSignature.header,
      value: HookSignature.sign(
        Array(body.readableBytesView), secret: hook.secret, time: Int(started / 1000)))
    request.body = .bytes(body)
    do {
      let response = try await client.execute(
        request, deadline: .now() + .milliseconds(Int64(hook.timeoutMilliseconds)))
      // Read (and drop) the answer, up to a bound and the deadline.
      var read = 0
      for try await chunk in response.body {
        read += chunk.readableBytes
        if read > Self.answerLimit || Self.now() > deadline { break }
      }
      if (200..<300).contains(Int(response.status.code)) { return .delivered }
      let wait = response.headers.first(name: "Retry-After").flatMap { RetryAfter.seconds($0) }
        .map { Int64($0 * 1000) }
      return .failed("HTTP \(response.status.code)", retryAfter: wait)
    } catch let error as HTTPClientError where error == .deadlineExceeded {
      return .failed("timed out after \(hook.timeoutMilliseconds) ms", retryAfter: nil)
    } catch {
      return .failed("\(error)", retryAfter: nil)
    }
  }

  /// The client, pinned to the address the hook's host resolves to now (checked by the rules).
  private func connection(now: Int64) -> Result<HTTPClient, HookAddressRules.Refusal> {
    if let open = state.withLockedValue({ s in
      s.client.flatMap { now - $0.resolvedAt < Self.resolveInterval ? $0.client : nil }
    }) {
      return .success(open)
    }
    let address: String
    switch rules.resolve(target) {
    case .success(let resolved): address = resolved
    case .failure(let refusal): return .failure(refusal)
    }
    var configuration = HTTPClient.Configuration()
    configuration.redirectConfiguration = .disallow
    configuration.timeout = .init(
      connect: .milliseconds(Int64(hook.timeoutMilliseconds)),
      read: .milliseconds(Int64(hook.timeoutMilliseconds)))
    configuration.connectionPool = .init(
      idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: hook.concurrency)
    if address != target.host { configuration.dnsOverride = [target.host: address] }
    let client = HTTPClient(
      eventLoopGroupProvider: .singleton, configuration: configuration)
    let (chosen, replaced) = state.withLockedValue { s -> (HTTPClient, HTTPClient?) in
      if s.stopped { return (client, client) }
      // Another worker may have opened one meanwhile: the newest wins.
      defer { s.client = (client, now) }
      return (client, s.client?.client)
    }
    Self.close(replaced, after: hook.timeoutMilliseconds)
    return .success(chosen)
  }

  /// Closes `client` once the requests it may carry have had their time.
  private static func close(_ client: HTTPClient?, after milliseconds: Int) {
    guard let client else { return }
    Task(executorPreference: executor) {
      try? await Task.sleep(for: .milliseconds(milliseconds + 100))
      try? await client.shutdown()
    }
  }

  // MARK: Settling

  private func settle(_ event: OutboxEvent, _ outcome: Outcome) {
    let now = Self.now()
    switch outcome {
    case .delivered:
      counters.delivered(latency: now - event.created)
      outbox.settle(.delivered(event.id)) { [self] in forget(event.id) }
    case .failed(let why, _) where event.attempts + 1 >= hook.attempts:
      counters.failed()
      outbox.settle(.dead(event.id, hook: hook.name, attempts: event.attempts + 1, error: why)) {
        [self] in forget(event.id)
      }
    case .failed(let why, let retryAfter):
      counters.retried()
      var again = event
      again.attempts += 1
      again.error = why
      // The receiver's Retry-After, if it asks for longer than the backoff.
      let wait = max(backoff(afterFailures: again.attempts), min(retryAfter ?? 0, Self.longestWait))
      again.due = now + wait
      outbox.settle(.retry(event.id, attempts: again.attempts, due: again.due, error: why)) {}
      state.withLockedValue { s in if !s.stopped { schedule(again, in: &s) } }
    }
  }

  /// Exponential backoff with equal jitter: half the doubled wait, plus a random part of up to
  /// the other half, so that receivers failing together are not retried together.
  private func backoff(afterFailures failures: Int) -> Int64 {
    let doubled = Int64(hook.backoffMilliseconds) << Int64(min(failures - 1, 30))
    let capped = min(Self.longestWait, doubled)
    return capped / 2 + Int64.random(in: 0...(capped / 2))
  }

  /// The event is settled on disk: it leaves the window, making room.
  private func forget(_ id: Int64) {
    let waiters = state.withLockedValue { s -> [CheckedContinuation<Void, Never>] in
      s.held.remove(id)
      if s.loading { s.settledWhileLoading.insert(id) }
      return Self.shouldLoad(s) ? Self.wake(&s) : []
    }
    for waiter in waiters { waiter.resume() }
  }
}

/// `text` as a JSON string.
func quoted(_ text: String) -> String {
  let data =
    (try? JSONSerialization.data(withJSONObject: [text], options: [])) ?? Data("[\"\"]".utf8)
  return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
}
