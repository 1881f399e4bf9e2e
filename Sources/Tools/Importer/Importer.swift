import Cards
import ErrorLines
import Foundation
import Gazetteer
import Geocoding

public struct ImportOptions: Sendable {
  public var input: String
  public var format: InputFormat
  /// Names the target (`server host:port` or `data DIR`) in the checkpoint's key.
  public var target: String
  public var report: String?
  /// Defaults to `<input>.checkpoint`.
  public var checkpoint: String?
  /// Matches below this are flagged `low-confidence` and not used.
  public var minConfidence = 0.5
  /// Geocoding requests in flight at once.
  public var concurrency = 4
  /// Rows geocoded and written together; the checkpoint moves after each chunk.
  public var chunkSize = 1_000
  /// Chunks queued at the sink at once: a kill replays at most these. The store's writer takes
  /// what is queued in one transaction, and a longer transaction writes each page of the random
  /// indexes (codes, emails, the R*Tree) to the WAL once for more rows: with 6, rounds of 3
  /// chunks; with 24, about 12, and 300,000 rows went from 18,900 to 22,000 a second (48: no
  /// faster, 10 MB more).
  public var chunksInFlight = 24
  /// Seconds between progress lines when stderr is not a terminal.
  public var progressInterval = 5.0

  public init(input: String, format: InputFormat, target: String) {
    self.input = input
    self.format = format
    self.target = target
  }

  var checkpointPath: String { checkpoint ?? input + ".checkpoint" }
}

/// How an import ended: rows by status (this run and any it resumed), and whether it stopped
/// early.
public struct ImportSummary: Sendable {
  public var counts: [String: Int]
  public var lastRow: Int
  public var seconds: Double
  public var rowsPerSecond: Double
  public var interrupted: Bool

  public var failed: Int { counts[RowReport.Status.failed.rawValue] ?? 0 }

  public var text: String {
    let parts = RowReport.Status.allCases.map { "\(counts[$0.rawValue] ?? 0) \($0.rawValue)" }
    let head =
      interrupted
      ? "interrupted after row \(lastRow); run the same command again to continue"
      : "imported \(lastRow) rows"
    return head + String(format: " (this run: %.1f s, %.0f rows/s): ", seconds, rowsPerSecond)
      + parts.joined(separator: ", ")
  }
}

/// `cardatlas import`: streams rows from a CSV or JSON Lines file a chunk at a time, geocodes
/// the chunk's addresses (at most `concurrency` at once), writes its cards through a
/// `CardSink` (while the next chunks are read and geocoded), reports each row once the chunk
/// is durable, then moves the checkpoint. A stop request (Ctrl-C) ends the run after the rows
/// already geocoded are written, so a rerun geocodes and writes each row once; after a kill, a
/// rerun replays at most the chunks that were in flight, and upserts by `externalId` make that
/// harmless.
public final class Importer {
  let options: ImportOptions
  let geocoder: any Geocoder
  let countries: CountryNames
  let sink: any CardSink
  let stopRequested: @Sendable () -> Bool
  let cache = GeocodeCache()

  public init(
    options: ImportOptions, geocoder: any Geocoder, countries: CountryNames,
    sink: any CardSink, stopRequested: @escaping @Sendable () -> Bool
  ) {
    self.options = options
    self.geocoder = geocoder
    self.countries = countries
    self.sink = sink
    self.stopRequested = stopRequested
  }

  /// Opens the input and checks its columns: throws `ImportError` for input refused before any
  /// row is written.
  public static func open(_ options: ImportOptions) throws(ImportError) -> ImportInput {
    ImportInput(source: try RowSources.open(options.input, format: options.format))
  }

  public func run(_ input: ImportInput) async throws -> ImportSummary {
    let source = input.source
    let identity = try Checkpoint.identity(input: options.input, target: options.target)
    var checkpoint =
      Checkpoint.load(options.checkpointPath, identity: identity)
      ?? Checkpoint(identity: identity)
    let report = try options.report.map {
      try ReportFile(path: $0, resumeAt: checkpoint.row > 0 ? checkpoint.reportSize : nil)
    }
    defer { report?.close() }
    let progress = Progress(
      total: source.estimatedRows, startRow: checkpoint.row, interval: options.progressInterval)
    let started = Date()
    var chunk: [RawRow] = []
    var interrupted = false
    // Chunks are written while the next ones are read and geocoded, in order; up to
    // `chunksInFlight` are queued at the sink, where a writer behind takes several at once.
    var writing: [(Prepared, Task<[Result<ImportOutcome, RowFailure>], any Error>)] = []
    func finishWriting(leaving inFlight: Int) async throws {
      while writing.count > inFlight {
        let (prepared, task) = writing.removeFirst()
        try self.complete(prepared, try await task.value, &checkpoint, report)
        progress.update(row: checkpoint.row)
      }
    }
    while !interrupted {
      let raw = try source.next()
      if let raw {
        if raw.row <= checkpoint.row { continue }
        chunk.append(raw)
        guard chunk.count == options.chunkSize else { continue }
      }
      if chunk.isEmpty { break }
      let prepared = await prepare(chunk)
      chunk.removeAll(keepingCapacity: true)
      writing.append((prepared, sink.send(prepared.requests)))
      try await finishWriting(leaving: options.chunksInFlight - 1)
      interrupted = prepared.cut || stopRequested()
      if raw == nil { break }
    }
    try await finishWriting(leaving: 0)
    progress.finish()
    if !interrupted { try? FileManager.default.removeItem(atPath: options.checkpointPath) }
    return ImportSummary(
      counts: checkpoint.counts, lastRow: checkpoint.row,
      seconds: Date().timeIntervalSince(started), rowsPerSecond: progress.rate(row: checkpoint.row),
      interrupted: interrupted)
  }

  /// A chunk read, geocoded and made into writes; `rows[written[i]]` is `requests[i]`'s row.
  struct Prepared {
    var rows: [RowReport] = []
    var requests: [CardWriteRequest] = []
    var written: [Int] = []
    /// A stop request left rows of the chunk ungeocoded: the rows from the first of them on
    /// are not in it.
    var cut = false
  }

  private func prepare(_ raws: [RawRow]) async -> Prepared {
    var records = raws.map { raw in
      raw.problem.map { problem in
        var record = ImportRecord(row: raw.row, cells: [:], countries: countries)
        record.problem = problem
        return record
      } ?? ImportRecord(row: raw.row, cells: raw.cells, countries: countries)
    }
    let found = await geocode(records)
    let done =
      found.firstIndex(where: { if case .skipped = $0 { true } else { false } }) ?? records.count
    records.removeSubrange(done...)
    var prepared = Prepared(cut: done < raws.count)
    let readsFields = sink.readsFields
    for (i, record) in records.enumerated() {
      var row = RowReport(row: record.row, externalId: record.externalId, status: .created)
      if let problem = record.problem {
        row.status = .failed
        row.reason = problem
        prepared.rows.append(row)
        continue
      }
      var record = record
      if let reason = record.notFound {
        row.status = .notFound
        row.reason = reason
      } else if case .answer(let answer) = found[i] {
        switch answer {
        case .failure(let error):
          row.status = .failed
          row.reason = "geocoder: \(error)"
          prepared.rows.append(row)
          continue
        case .success(nil):
          row.status = .notFound
          row.reason = "no match for the address; imported without a location"
        case .success(let place?):
          (row.lon, row.lat, row.label, row.confidence) = (
            place.lon, place.lat, place.label, place.confidence
          )
          if place.confidence >= options.minConfidence {
            record.locate(lon: place.lon, lat: place.lat, source: "geocoded")
          } else {
            row.status = .lowConfidence
            row.reason = String(
              format: "confidence below %.2f; imported without a location",
              options.minConfidence)
          }
        }
      } else if let location = record.object["location"] as? [String: Any] {
        (row.lon, row.lat) = (location["lon"] as? Double, location["lat"] as? Double)
      }
      prepared.written.append(prepared.rows.count)
      prepared.rows.append(row)
      // Fields read here are written as their stored JSON; fields refused go as the row's own
      // JSON, which the domain reads to name the problem.
      let read = readsFields ? try? CardFields.read(object: record.object) : nil
      prepared.requests.append(
        CardWriteRequest(
          ownerEmail: record.ownerEmail, externalId: record.externalId,
          json: read?.json() ?? record.json(), read: read))
    }
    return prepared
  }

  /// A chunk written: its rows reported, then the checkpoint moved past them.
  private func complete(
    _ prepared: Prepared, _ outcomes: [Result<ImportOutcome, RowFailure>],
    _ checkpoint: inout Checkpoint, _ report: ReportFile?
  ) throws {
    var rows = prepared.rows
    for (at, outcome) in zip(prepared.written, outcomes) {
      switch outcome {
      case .failure(let failure):
        rows[at].status = .failed
        rows[at].reason = failure.message
      case .success(let outcome) where rows[at].status == .created:
        rows[at].status = RowReport.Status(rawValue: outcome.rawValue) ?? .created
      case .success: break
      }
    }
    guard let last = rows.last else { return }
    try report?.append(rows)
    for row in rows { checkpoint.counts[row.status.rawValue, default: 0] += 1 }
    checkpoint.row = last.row
    checkpoint.reportSize = report?.size
    try checkpoint.save(options.checkpointPath)
  }
}

/// An input whose columns have been checked, ready to stream.
public final class ImportInput {
  let source: any RowSource
  init(source: any RowSource) { self.source = source }
}
