import Foundation
import HookReceiver
import Logging
import SQLiteHookOutbox
import Testing

@testable import Webhooks

@Suite("Webhooks: signatures and address rules")
struct WebhookPartsTests {
  @Test(
    "the signature is Stripe's form: HMAC-SHA256 of <t>.<body>, as Python's hmac computes it; verify refuses another body, secret, or an old time"
  )
  func signature() {
    let body = Data(#"{"a":1}"#.utf8)
    let header = HookSignature.sign(body, secret: "whsec_test", time: 1_700_000_000)
    #expect(
      header == "t=1700000000,v1=38877139021993b830af32feea6e18a8da83eb2f6e49ee50bd9e4cf4ca4d3789")
    #expect(HookSignature.verify(header, body: body, secret: "whsec_test", now: 1_700_000_100))
    #expect(
      !HookSignature.verify(header, body: Data("{}".utf8), secret: "whsec_test", now: 1_700_000_000)
    )
    #expect(!HookSignature.verify(header, body: body, secret: "whsec_other", now: 1_700_000_000))
    #expect(!HookSignature.verify(header, body: body, secret: "whsec_test", now: 1_700_000_400))
    #expect(
      !HookSignature.verify(
        "t=1700000000,v1=zz", body: body, secret: "whsec_test", now: 1_700_000_000))
  }

  @Test(
    "addresses: loopback, private, shared, link-local, multicast, documentation and IPv6 forms carrying them are not public; ordinary ones are"
  )
  func addresses() {
    let inside = [
      "127.0.0.1", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
      "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "192.0.2.1", "198.18.0.1",
      "::1", "::", "fe80::1", "fc00::1", "fd12::1", "ff02::1", "::ffff:10.0.0.1",
      "64:ff9b::7f00:1", "2002:7f00:1::", "2001:db8::1",
    ]
    let outside = [
      "93.184.215.14", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111",
      "::ffff:8.8.8.8",
    ]
    for text in inside { #expect(IPAddress(text)?.isPublic == false, "\(text)") }
    for text in outside { #expect(IPAddress(text)?.isPublic == true, "\(text)") }
    #expect(IPAddress("example.com") == nil)
  }

  @Test(
    "the rules: https only unless insecure is allowed; a literal private address refused as inside; a name is checked when resolved"
  )
  func rules() {
    let strict = HookAddressRules()
    #expect(
      (try? strict.target(of: "https://93.184.215.14:8443/x").get())
        == .init(host: "93.184.215.14", port: 8443, secure: true))
    #expect(throws: HookAddressRules.Refusal.self) {
      try strict.target(of: "http://93.184.215.14/x").get()
    }
    #expect(throws: HookAddressRules.Refusal.self) {
      try strict.target(of: "https://[::1]/x").get()
    }
    if case .failure(let refusal) = strict.resolve(
      .init(host: "localhost", port: 443, secure: true))
    {
      #expect(refusal.inside)
    } else {
      Issue.record("localhost resolved to a public address")
    }
    let loose = HookAddressRules(allowInsecure: true)
    #expect((try? loose.target(of: "http://127.0.0.1:9/x").get())?.port == 9)
    #expect((try? loose.resolve(.init(host: "localhost", port: 80, secure: false)).get()) != nil)
  }
}

@Suite("Webhooks: the outbox's window")
struct OutboxWindowTests {
  @Test(
    "3,000 events for a receiver that fails the first 1,500 tries: the runner holds at most its window in memory, the rest wait on disk; every event arrives once it answers, each under one id"
  )
  func spillsToDisk() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("cardatlas-outbox-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let receiver = HookReceiver()
    receiver.answer { _, nth in nth <= 1_500 ? .status(503) : .status(200) }
    let port = try await receiver.start()
    let webhooks = try Webhooks(
      outbox: SQLiteHookOutbox(directory: directory, durable: false),
      rules: HookAddressRules(allowInsecure: true),
      logger: Logger(label: "test"))
    let hook = Hook(
      name: "h", url: "http://127.0.0.1:\(port)/hook", fences: "*", attempts: 50,
      backoffMilliseconds: 10, concurrency: 16)
    receiver.setSecret(hook.secret)
    await withCheckedContinuation { done in webhooks.set(hook) { _ in done.resume() } }
    for chunk in 0..<30 {
      let events = (0..<100).map { i in
        (hook: "h", payload: Data(#"{"n":\#(chunk * 100 + i)}"#.utf8))
      }
      await withCheckedContinuation { done in webhooks.enqueue(events) { _ in done.resume() } }
    }
    let clock = ContinuousClock()
    let end = clock.now + .seconds(60)
    while receiver.events < 1_500 + 3_000, clock.now < end {
      try await Task.sleep(for: .milliseconds(5))
    }
    try await Task.sleep(for: .milliseconds(200))
    // Measured by the runner itself: this test's own polling may be starved on a loaded machine.
    let most = webhooks.runner("h")?.mostHeld ?? 0
    #expect(most <= HookRunner.windowSize && most > 100, "\(most)")
    let delivered = receiver.deliveries.filter { $0.request > 1_500 }
    #expect(delivered.count == 3_000)
    let numbers = Set(delivered.compactMap { ($0.object["event"] as? [String: Any])?["n"] as? Int })
    #expect(numbers == Set(0..<3_000))
    #expect(Set(delivered.map(\.id)).count == 3_000)
    #expect(webhooks.hook("h")?.1.pending == 0 && webhooks.hook("h")?.1.delivered == 3_000)
    webhooks.shutdown()
    await receiver.stop()
  }
}
