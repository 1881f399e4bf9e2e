import Commands
import Fences
import Foundation
import Keyspace
import NIOCore
import RESP

/// FENCE.*: the admin's fences over GEO keys (docs/PROTOCOL.md, "Fences"). Accounts get NOPERM.
struct FenceCommands: Sendable {
  let fences: KeyspaceFences

  var all: [CommandSpec] {
    [
      // FENCE.SET <name> KEY <key> <area> [DETECT <event>[,<event>…]] [NOREPEAT] [CHANNEL <ch>]
      //   [EX <seconds>] [DWELL <seconds>] [DEBOUNCE <seconds>]
      CommandSpec("fence.set", arity: -5) { call in
        let args = call.arguments
        let name = args.bytes(1)
        guard (1...128).contains(name.count) else { return .error(FenceArgumentError.name.message) }
        guard args.is(2, "key") else { return .error(RedisError.syntax) }
        let key = args.bytes(3)
        let area: FenceArea
        var i: Int
        switch FenceArea.parse(args, at: 4) {
        case .failure(let error): return .error(error.message)
        case .success(let parsed): (area, i) = parsed
        }
        var detect: FenceDetect = [.enter, .exit]
        var repeats = true
        var channel = Array("fence:".utf8) + name
        var expires: Int64?
        var dwell: Int64?
        var debounce: Int64?
        while i < args.count {
          if args.is(i, "detect"), i + 1 < args.count {
            detect = []
            for word in args.lowercased(i + 1).split(separator: ",") {
              guard let kind = FenceEvent.Kind.allCases.first(where: { $0.name == word }) else {
                return .error(FenceArgumentError.detect(String(word)).message)
              }
              detect.insert(FenceDetect(rawValue: 1 << kind.rawValue))
            }
            i += 2
          } else if args.is(i, "norepeat") {
            repeats = false
            i += 1
          } else if args.is(i, "channel"), i + 1 < args.count {
            channel = args.bytes(i + 1)
            i += 2
          } else if args.is(i, "ex"), i + 1 < args.count {
            // Up to ten years, as seconds from now.
            guard let seconds = args.integer(i + 1), (1...315_360_000).contains(seconds) else {
              return .error("ERR invalid expire time in 'fence.set' command")
            }
            expires = fences.clock() + Int64(seconds) * 1000
            i += 2
          } else if args.is(i, "dwell") || args.is(i, "debounce"), i + 1 < args.count {
            // Seconds, up to a day.
            let word = args.lowercased(i)
            guard let seconds = args.integer(i + 1), (1...86_400).contains(seconds) else {
              return .error(
                "ERR \(word.uppercased()) must be a whole number of seconds from 1 to 86400")
            }
            if word == "dwell" {
              dwell = Int64(seconds) * 1000
            } else {
              debounce = Int64(seconds) * 1000
            }
            i += 2
          } else {
            return .error(RedisError.syntax)
          }
        }
        // A dwell is told as `inside`.
        if dwell != nil { detect.insert(.inside) }
        let fence = KeyspaceFences.Definition(
          name: String(decoding: name, as: UTF8.self), db: call.session.db, key: key, area: area,
          detect: detect, repeats: repeats, channel: channel, expires: expires, dwell: dwell,
          debounce: debounce)
        call.pending = { answer in
          fences.set(fence) { result in
            switch result {
            case .success: answer(.simpleString("OK"))
            case .failure(.full(let limit)):
              answer(
                .error("ERR the server holds \(limit) fences, its most (FENCE.DEL some first)"))
            case .failure(.wrongType): answer(.error(RedisError.wrongType))
            case .failure(.log(let why)): answer(.error("ERR the fence could not be kept: \(why)"))
            }
          }
        }
        return .null
      },
      // FENCE.GET <name>: the fence as JSON, with the members inside it now.
      CommandSpec("fence.get", arity: 2) { call in
        guard let (fence, inside) = fences.get(call.arguments.string(1)) else { return .null }
        var object: [String: Any] =
          [
            "name": fence.name, "db": fence.db, "key": String(decoding: fence.key, as: UTF8.self),
            "area": (try? JSONSerialization.jsonObject(with: fence.area.description)) ?? [:],
            "detect": FenceEvent.Kind.allCases.filter {
              fence.detect.contains(FenceDetect(rawValue: 1 << $0.rawValue))
            }.map(\.name),
            "repeats": fence.repeats, "channel": String(decoding: fence.channel, as: UTF8.self),
            "inside": inside.map { String(decoding: $0, as: UTF8.self) },
          ]
        if let expires = fence.expires { object["expires"] = expires }
        if let dwell = fence.dwell { object["dwell"] = dwell / 1000 }
        if let debounce = fence.debounce { object["debounce"] = debounce / 1000 }
        return .json(object)
      },
      // FENCE.LIST [pattern]: the names, sorted.
      CommandSpec("fence.list", arity: -1) { call in
        let args = call.arguments
        guard args.count <= 2 else { return .error(RedisError.syntax) }
        let pattern = args.count == 2 ? args.bytes(1) : Array("*".utf8)
        return .array(
          fences.names().filter { globMatches(pattern, Array($0.utf8)) }.map {
            .bulkString(ByteBuffer(string: $0))
          })
      },
      // FENCE.DEL <name>: 1 if it was there.
      CommandSpec("fence.del", arity: 2) { call in
        let name = call.arguments.string(1)
        call.pending = { answer in
          fences.delete(name) { result in
            switch result {
            case .success(let found): answer(.integer(found ? 1 : 0))
            case .failure(let error): answer(.error("ERR the removal could not be kept: \(error)"))
            }
          }
        }
        return .null
      },
    ]
  }
}
