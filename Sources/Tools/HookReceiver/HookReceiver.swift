import Dispatch
import DomainSupport
import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle
import Webhooks

/// A webhook receiver on Hummingbird, for the tests and the benchmarks: it checks each
/// request's signature, keeps what it received with when, and answers as told (a status, a
/// Retry-After, or a stall past the sender's timeout).
public final class HookReceiver: Sendable {
  public struct Delivery: Sendable {
    /// The outbox's id (`CardAtlas-Event-Id`) and the try (`CardAtlas-Attempt`).
    public let id: Int64
    public let attempt: Int
    /// The request's number, counted from 1 (a batch's events share it).
    public let request: Int
    public let body: Data
    /// Whether `CardAtlas-Signature` signs the body under the secret set then.
    public let verified: Bool
    /// When it arrived, in DispatchTime's uptime nanoseconds.
    public let arrived: UInt64

    /// The body as JSON.
    public var object: [String: Any] {
      (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
    }
  }

  public enum Answer: Sendable {
    case status(Int, retryAfter: String? = nil)
    /// Waits this long, then answers 200: past the hook's timeout, the sender has given up.
    case stall(Duration)
    /// Waits until `release()` (or a minute), then answers 200.
    case hold
  }

  private struct State {
    var secret = ""
    var deliveries: [Delivery] = []
    var keep = true
    var count = 0
    var events = 0
    var answer: @Sendable (Delivery, Int) -> Answer = { _, _ in .status(200) }
    var running: (group: ServiceGroup, task: Task<Void, Never>)?
    var released = false
  }
  // NIO's pthread lock, not Synchronization's Mutex: ThreadSanitizer sees it.
  private let state = NIOLockedValueBox(State())

  public init() {}

  /// The hook's secret, to check signatures with.
  public func setSecret(_ secret: String) { state.withLockedValue { $0.secret = secret } }

  /// How to answer the nth request (counted from 1) with what it carried.
  public func answer(_ rule: @escaping @Sendable (Delivery, Int) -> Answer) {
    state.withLockedValue { $0.answer = rule }
  }

  /// Lets the requests answered `.hold` go.
  public func release() { state.withLockedValue { $0.released = true } }

  /// Whether to keep the deliveries (a benchmark only counts them).
  public func keepDeliveries(_ keep: Bool) { state.withLockedValue { $0.keep = keep } }

  public var deliveries: [Delivery] { state.withLockedValue { $0.deliveries } }
  /// Requests received.
  public var count: Int { state.withLockedValue { $0.count } }
  /// Events received (a batch's each).
  public var events: Int { state.withLockedValue { $0.events } }

  /// A body's events with their ids: itself, or a batch's each with its hook (as one event's
  /// body has it).
  static func split(_ body: Data) -> [(Int64, Data)] {
    guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
      return [(0, body)]
    }
    guard let batch = object["events"] as? [[String: Any]] else {
      return [((object["id"] as? NSNumber)?.int64Value ?? 0, body)]
    }
    return batch.map { element in
      var one = element
      one["hook"] = object["hook"]
      let data = (try? JSONSerialization.data(withJSONObject: one)) ?? Data()
      return ((element["id"] as? NSNumber)?.int64Value ?? 0, data)
    }
  }

  /// Waits until `ready` holds of the deliveries, up to `timeout`; whether it did.
  public func wait(
    upTo timeout: Duration = .seconds(30), until ready: ([Delivery]) -> Bool
  ) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now + timeout
    while clock.now < end {
      if ready(deliveries) { return true }
      try? await Task.sleep(for: .milliseconds(10))
    }
    return ready(deliveries)
  }

  /// Serves on `host` (port 0: any); returns the port.
  public func start(host: String = "127.0.0.1", port: Int = 0) async throws -> Int {
    let router = Router()
    router.post("/hook") { [self] request, _ -> Response in
      let body = try await request.body.collect(upTo: 1 << 20)
      let header = request.headers[.init(HookSignature.header)!] ?? ""
      let (secret, nth, rule) = state.withLockedValue { s in
        s.count += 1
        return (s.secret, s.count, s.answer)
      }
      let bytes = Data(body.readableBytesView)
      let verified = HookSignature.verify(
        header, body: bytes, secret: secret, now: Int(Date().timeIntervalSince1970))
      let attempt = Int(request.headers[.init("CardAtlas-Attempt")!] ?? "") ?? 0
      let arrived = DispatchTime.now().uptimeNanoseconds
      let deliveries = Self.split(bytes).map { id, body in
        Delivery(
          id: id, attempt: attempt, request: nth, body: body, verified: verified,
          arrived: arrived)
      }
      let delivery =
        deliveries.first
        ?? Delivery(
          id: 0, attempt: attempt, request: nth, body: bytes, verified: verified, arrived: arrived)
      state.withLockedValue { s in
        s.events += deliveries.count
        if s.keep { s.deliveries += deliveries }
      }
      switch rule(delivery, nth) {
      case .status(let code, let retryAfter):
        var headers = HTTPFields()
        if let retryAfter { headers[.retryAfter] = retryAfter }
        return Response(status: .init(code: code), headers: headers)
      case .stall(let duration):
        try? await Task.sleep(for: duration)
        return Response(status: .ok)
      case .hold:
        let end = ContinuousClock.now + .seconds(60)
        while !state.withLockedValue({ $0.released }), ContinuousClock.now < end {
          try? await Task.sleep(for: .milliseconds(10))
        }
        return Response(status: .ok)
      }
    }
    let (bound, sink) = AsyncStream<Int>.makeStream()
    var logger = Logger(label: "hook-receiver")
    logger.logLevel = .warning
    let app = Application(
      router: router, configuration: .init(address: .hostname(host, port: port)),
      onServerRunning: { channel in sink.yield(channel.localAddress?.port ?? port) },
      logger: logger)
    let group = ServiceGroup(
      configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
    // On Dispatch's threads: a test blocking Swift's cooperative pool must not hold the
    // receiver up.
    let task = Task(executorPreference: DispatchTaskExecutor.shared) {
      try? await group.run()
      sink.finish()
    }
    state.withLockedValue { $0.running = (group, task) }
    for await port in bound { return port }
    throw CancellationError()
  }

  public func stop() async {
    guard
      let (group, task) = state.withLockedValue({ s in
        defer { s.running = nil }
        return s.running
      })
    else { return }
    await group.triggerGracefulShutdown()
    await task.value
  }
}
