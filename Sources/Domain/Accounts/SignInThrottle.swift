import Foundation
import Synchronization

/// Slows down password guessing without locking the owner out. An attempt counts on three
/// keys: its address (one address guessing at many emails), the pair of email and address (one
/// address guessing at one email), and the email alone (many addresses guessing at one email),
/// the last only from addresses that never signed in to that email: the owner's own devices
/// pass a siege of the email from elsewhere.
///
/// After a key's free failures, each further attempt on it waits for a turn, the turns spaced
/// twice as far apart after each failure (up to `maximumDelay`), until `forgetAfter` passes
/// without a failure. Concurrent guesses queue for their turns rather than sharing one wait;
/// one whose turn is further off than `maximumWait` is refused at once. A success clears its
/// pair, never its address or its email (the owner signing in does not unlock an address, or an
/// email, for the attacker).
public final class SignInThrottle: Sendable {
  public struct Policy: Sendable {
    public var freeFailures = 5
    /// Failures of an email from addresses that never signed in to it, before its turns.
    public var freeEmailFailures = 50
    public var maximumDelay: Double = 60
    public var forgetAfter: Double = 15 * 60
    /// The furthest turn an attempt waits for; beyond it the attempt is refused.
    public var maximumWait: Double = 120
    /// Addresses remembered per email as having signed in to it.
    public var knownAddresses = 8
    /// Keys remembered at most: beyond it, the stalest are forgotten first.
    public var capacity = 100_000

    public init() {}
  }

  /// Which keys an attempt counts on.
  struct Attempt: Sendable {
    let email: String
    let address: String
    let keys: [String]
  }

  private struct Failures {
    var count = 0
    var last: Double = 0
    /// No turn on this key before this time.
    var nextTurn: Double = 0
  }

  private struct State {
    var failures: [String: Failures] = [:]
    /// Addresses that signed in to an email, most recent last.
    var known: [String: [String]] = [:]
  }

  let policy: Policy
  private let state = Mutex(State())

  init(policy: Policy = Policy()) { self.policy = policy }

  /// The attempt of an email (its key) from an address (`ClientAddress.key`).
  func attempt(email: String, address: String) -> Attempt {
    let known = state.withLock { $0.known[email]?.contains(address) ?? false }
    let keys =
      ["address:" + address, "pair:\(email) " + address] + (known ? [] : ["email:" + email])
    return Attempt(email: email, address: address, keys: keys)
  }

  /// Takes a turn for an attempt: the seconds to wait for it, or nothing taken when the turn is
  /// further off than `maximumWait`, and then the seconds until it would not be.
  func begin(_ attempt: Attempt, now: Double = Date().timeIntervalSince1970) -> Result<
    Double, TooLong
  > {
    state.withLock { s in
      var start = now
      for key in attempt.keys {
        guard let f = s.failures[key], spacing(key, f, now: now) > 0 else { continue }
        start = max(start, f.nextTurn)
      }
      guard start - now <= policy.maximumWait else {
        return .failure(TooLong(seconds: Int((start - now - policy.maximumWait).rounded(.up)) + 1))
      }
      for key in attempt.keys {
        guard let f = s.failures[key] else { continue }
        let spacing = spacing(key, f, now: now)
        if spacing > 0 { s.failures[key]!.nextTurn = max(f.nextTurn, start + spacing) }
      }
      return .success(start - now)
    }
  }

  /// An attempt whose turn is too far off: retry after `seconds`.
  struct TooLong: Error {
    let seconds: Int
  }

  func failed(_ attempt: Attempt, now: Double = Date().timeIntervalSince1970) {
    state.withLock { s in
      for key in attempt.keys {
        var f = s.failures[key] ?? Failures()
        if now - f.last >= policy.forgetAfter { f = Failures() }
        f.count += 1
        f.last = now
        f.nextTurn = max(f.nextTurn, now + spacing(key, f, now: now))
        s.failures[key] = f
      }
      if s.failures.count > policy.capacity {
        let stalest = s.failures.sorted { $0.value.last < $1.value.last }
          .prefix(s.failures.count - policy.capacity * 9 / 10)
        for (key, _) in stalest { s.failures[key] = nil }
      }
    }
  }

  func succeeded(_ attempt: Attempt) {
    state.withLock { s in
      s.failures[attempt.keys[1]] = nil
      var known = s.known[attempt.email, default: []].filter { $0 != attempt.address }
      known.append(attempt.address)
      s.known[attempt.email] = Array(known.suffix(policy.knownAddresses))
      if s.known.count > policy.capacity { s.known.removeAll(keepingCapacity: true) }
    }
  }

  /// The time between turns on a key, 0 while it has failures to spare.
  private func spacing(_ key: String, _ f: Failures, now: Double) -> Double {
    let free = key.hasPrefix("email:") ? policy.freeEmailFailures : policy.freeFailures
    guard now - f.last < policy.forgetAfter, f.count >= free else { return 0 }
    return min(policy.maximumDelay, Double(1 << min(f.count - free, 30)))
  }
}
