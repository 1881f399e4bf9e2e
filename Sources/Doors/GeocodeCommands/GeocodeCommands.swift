import Commands
import DomainSupport
import Foundation
import GeocoderClients
import Geocoding
import NIOCore
import RESP

/// GEOCODE and GEOCODE.REVERSE for signed-in accounts: arguments in, places out as JSON. The
/// geocoder runs in a task of its own on `DispatchTaskExecutor`, off the event loop; the reply
/// keeps its place among the connection's.
public struct GeocodeCommands: Sendable {
  let geocoder: any Geocoder

  public init(_ geocoder: any Geocoder) { self.geocoder = geocoder }

  public var all: [CommandSpec] {
    [
      CommandSpec("geocode", arity: -2, flags: .needsAccount) { call in
        var query = GeocodeQuery(call.arguments.string(1))
        var i = 2
        while i < call.arguments.count {
          guard i + 1 < call.arguments.count else { return .error(RedisError.syntax) }
          if call.arguments.is(i, "country") {
            query.countryCode = call.arguments.string(i + 1)
          } else if call.arguments.is(i, "count") {
            guard let count = call.arguments.integer(i + 1) else {
              return .error(RedisError.notInteger)
            }
            query.limit = count
          } else {
            return .error(RedisError.syntax)
          }
          i += 2
        }
        do {
          query = try query.validated()
        } catch {
          return .error("ERR \(error)")
        }
        call.pending = { [geocoder, query] answer in
          Task(executorPreference: DispatchTaskExecutor.shared) {
            answer(await Self.reply { .array(try await geocoder.search(query).map(Self.json)) })
          }
        }
        return .null
      },
      CommandSpec("geocode.reverse", arity: 3, flags: .needsAccount) { call in
        guard let lon = call.arguments.double(1), let lat = call.arguments.double(2) else {
          return .error(RedisError.notFloat)
        }
        do {
          try validateCoordinate(lon: lon, lat: lat)
        } catch {
          return .error("ERR \(error)")
        }
        call.pending = { [geocoder] answer in
          Task(executorPreference: DispatchTaskExecutor.shared) {
            answer(
              await Self.reply {
                try await geocoder.reverse(lon: lon, lat: lat).map(Self.json) ?? .null
              })
          }
        }
        return .null
      },
    ]
  }

  /// The reply, or the error's: `GEOCODER` when the service failed.
  static func reply(_ body: () async throws -> RESPValue) async -> RESPValue {
    do {
      return try await body()
    } catch let error as GeocodeError {
      return .error("ERR \(error)")
    } catch {
      return .error("GEOCODER \(error)")
    }
  }

  /// A place as one JSON object, keys sorted: `lon`, `lat`, `label`, `bbox`, `confidence`,
  /// `provider`, `ids` and the known parts.
  static func json(_ place: Place) -> RESPValue {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(place)) ?? Data("{}".utf8)
    return .bulkString(ByteBuffer(bytes: data))
  }
}
