import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An import stopped part-way (Ctrl-C or kill -9) and run again ends with the same cards as
/// one uninterrupted run, and its report lists every row once.
@Suite("cardatlas import interrupted", .serialized)
struct InterruptionTests {
  static let rows = 6_000

  /// Rows with lon/lat and rows to geocode; owners with one card each and Pro-less owners
  /// with two (their second fails with LIMIT), so replays would show as duplicates or as
  /// changed failures.
  static func generate(_ scratch: Scratch) throws -> String {
    let cities = ["Vaduz", "Schaan", "Prattville", "Montgomery", "Zurich", "Berlin"]
    var text = "externalId,ownerEmail,firstName,company,city,lon,lat\n"
    for i in 1...rows {
      let owner = i % 3 == 0 ? "owner\(i - 1)@example.com" : "owner\(i)@example.com"
      if i % 2 == 0 {
        text += "e\(i),\(owner),First\(i),Co \(i % 17),\(cities[i % cities.count]),,\n"
      } else {
        let lon = Double(i % 360) - 179.5
        let lat = Double(i % 170) - 84.5
        text += "e\(i),\(owner),First\(i),Co \(i % 17),,\(lon),\(lat)\n"
      }
    }
    return try scratch.write("big.csv", text)
  }

  /// `target`: `--data DIR` or `--server host:port --password ...`.
  static func arguments(_ input: String, _ target: [String], _ scratch: Scratch, report: String)
    -> [String]
  {
    ["import", input] + target + [
      "--report", scratch.path(report), "--chunk-size", "100", "--progress-interval", "0.2",
    ]
  }

  /// Starts an import, waits until its checkpoint has moved past a few chunks, signals it,
  /// and returns its exit status.
  static func interrupt(
    _ input: String, _ target: [String], _ scratch: Scratch, signal number: Int32
  ) throws -> (status: Int32, row: Int) {
    let program = try Program(
      arguments(input, target, scratch, report: "report.csv"), in: scratch)
    let checkpoint = input + ".checkpoint"
    var row = 0
    for _ in 0..<1_200 where row < 500 {
      usleep(50_000)
      if let data = FileManager.default.contents(atPath: checkpoint),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
      {
        row = object["row"] as? Int ?? 0
      }
    }
    program.signal(number)
    let run = program.finish()
    return (run.status, row)
  }

  /// `intoDaemon`: the interrupted import and its rerun write to a daemon running on the
  /// directory (the reference run writes into one directly: both give the same cards).
  static func check(signal number: Int32, intoDaemon: Bool = false) throws {
    let scratch = try Scratch()
    defer { scratch.remove() }
    let input = try generate(scratch)

    let reference = scratch.path("reference")
    let whole = try Program(
      arguments(input, ["--data", reference], scratch, report: "reference.csv") + [
        "--checkpoint", scratch.path("reference.checkpoint"),
      ], in: scratch
    ).finish()
    #expect(whole.status == 1, "LIMIT rows fail: \(whole.err)")

    let data = scratch.path("var")
    let daemon = intoDaemon ? try Daemon(data: data, in: scratch) : nil
    defer { daemon?.stop() }
    let target =
      daemon.map { ["--server", $0.address, "--password", Daemon.password] } ?? ["--data", data]
    let stopped = try interrupt(input, target, scratch, signal: number)
    #expect(stopped.row >= 500 && stopped.row < rows, "stopped at row \(stopped.row)")
    // Foundation reports a process killed by a signal with the signal's number.
    #expect(stopped.status == (number == SIGINT ? 130 : SIGKILL), "\(stopped.status)")
    let rerun = try Program(arguments(input, target, scratch, report: "report.csv"), in: scratch)
      .finish()
    #expect(rerun.status == 1, "\(rerun.err)")
    #expect(rerun.err.contains("resuming after row"), "\(rerun.err)")
    #expect(!FileManager.default.fileExists(atPath: input + ".checkpoint"))

    daemon?.stop()
    #expect(try CardSet(data: data) == CardSet(data: reference))
    let rows = try reportRows(scratch.path("report.csv"))
    let expected = try reportRows(scratch.path("reference.csv"))
    #expect(rows.map { $0["row"] } == (1...Self.rows).map { String($0) })
    // A kill may land between a chunk's write and its checkpoint: that chunk is replayed, and
    // its rows then read `unchanged` where they were `created`; nothing else differs.
    for (got, want) in zip(rows, expected) where got["status"] != want["status"] {
      #expect(number == SIGKILL && got["status"] == "unchanged" && want["status"] == "created")
    }
    #expect(rows.map { $0["reason"] } == expected.map { $0["reason"] })
  }

  @Test("Ctrl-C (SIGINT) part-way, then a rerun: the same cards as one run")
  func sigint() throws { try Self.check(signal: SIGINT) }

  @Test("kill -9 part-way, then a rerun: the same cards as one run")
  func sigkill() throws { try Self.check(signal: SIGKILL) }

  @Test("Ctrl-C part-way into a running daemon, then a rerun: the same cards as one run")
  func sigintIntoADaemon() throws { try Self.check(signal: SIGINT, intoDaemon: true) }

  @Test("kill -9 part-way into a running daemon, then a rerun: the same cards as one run")
  func sigkillIntoADaemon() throws { try Self.check(signal: SIGKILL, intoDaemon: true) }
}
