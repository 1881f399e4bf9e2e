import CardCommands
import Commands
import ErrorLines
import NIOCore
import Pins
import RESP

/// PIN.*: each reads its arguments, calls `Pins` as the signed-in account, and answers (a
/// change once it is durable). The rules are in `Pins`.
public struct PinCommands: Sendable {
  let pins: Pins

  public init(pins: Pins) {
    self.pins = pins
  }

  public var all: [CommandSpec] {
    [
      // PIN.ADD <lon> <lat> <radius> <unit> <json>
      write("pin.add", arity: 6) { call, owner in
        let args = call.arguments
        let (lon, lat, radius, unit) = (
          args.double(1), args.double(2), args.double(3), args.unit(4)
        )
        let json = args.string(5)
        return { done in
          guard let lon, let lat else { return done(.failure(Self.badPoint)) }
          guard let radius else {
            return done(.failure(.invalid("radius", "must be 10 m to 50 km")))
          }
          guard let unit else { return done(.failure(.badQuery(Self.unitError))) }
          pins.add(
            owner: owner, longitude: lon, latitude: lat, radius: radius * unit, json: json, done)
        }
      },
      // PIN.PHOTO <id> <bytes>
      write("pin.photo", arity: 3) { call, owner in
        let (id, bytes) = (Self.id(call, 1), call.arguments.bytes(2))
        return { done in
          guard let id else { return done(.failure(.notFound)) }
          pins.setPhoto(owner: owner, id: id, bytes: bytes, done)
        }
      },
      // PIN.VOTE <id> UP|DOWN|NONE
      write("pin.vote", arity: 3) { call, account in
        let id = Self.id(call, 1)
        let args = call.arguments
        let vote: Int8? =
          args.is(2, "up") ? 1 : args.is(2, "down") ? -1 : args.is(2, "none") ? 0 : nil
        return { done in
          guard let id else { return done(.failure(.notFound)) }
          guard let vote else { return done(.failure(.badQuery("vote must be UP, DOWN or NONE"))) }
          pins.vote(account: account, id: id, vote: vote, done)
        }
      },
      CommandSpec("pin.del", arity: 2, flags: [.needsAccount, .write]) { [pins] call in
        guard let owner = call.session.account else { return .error(RedisError.needsAccount) }
        guard let id = Self.id(call, 1) else { return .error(PinError.notFound.message) }
        call.pending = { answer in
          pins.delete(owner: owner, id: id) { answer($0.reply { .integer(1) }) }
        }
        return .null
      },
      CommandSpec("pin.get", arity: 2, flags: .needsAccount) { [pins] call in
        guard let pin = Self.id(call, 1).flatMap(pins.pin) else {
          return .error(PinError.notFound.message)
        }
        return .bulkString(ByteBuffer(bytes: pins.summary(pin)))
      },
      // PIN.AT <lon> <lat>: [id, distance in metres, pin JSON] for every circle holding it.
      CommandSpec("pin.at", arity: 3, flags: .needsAccount) { [pins] call in
        guard let lon = call.arguments.double(1), let lat = call.arguments.double(2) else {
          return .error(Self.badPoint.message)
        }
        let version = call.session.protocolVersion
        return pins.at(longitude: lon, latitude: lat).reply { hits in
          MapSearchReply.reply(
            hits, next: nil, withDistance: true, withCoordinates: false, unit: 1, paged: false,
            protocol: version)
        }
      },
      // PIN.OPEN <id> <lon> <lat>: the photo's bytes, or NOTINRANGE <metres to the edge>.
      CommandSpec("pin.open", arity: 4, flags: .needsAccount) { [pins] call in
        guard let id = Self.id(call, 1) else { return .error(PinError.notFound.message) }
        guard let lon = call.arguments.double(2), let lat = call.arguments.double(3) else {
          return .error(Self.badPoint.message)
        }
        guard let account = call.session.account else { return .error(RedisError.needsAccount) }
        call.replyBytes = pins.pin(id)?.photo?.bytes ?? 0
        call.pending = { answer in
          pins.open(id: id, account: account, longitude: lon, latitude: lat) {
            answer($0.reply { .bulkString(ByteBuffer(bytes: $0)) })
          }
        }
        return .null
      },
      // PIN.TOP <lon> <lat> <r> <unit> [COUNT n]: [id, distance in the unit, pin JSON].
      CommandSpec("pin.top", arity: -5, flags: .needsAccount) { [pins] call in
        let args = call.arguments
        guard let lon = args.double(1), let lat = args.double(2) else {
          return .error(Self.badPoint.message)
        }
        guard let r = args.double(3) else { return .error("ERR value is not a valid float") }
        guard let unit = args.unit(4) else { return .error("ERR " + Self.unitError) }
        var count = 10
        if args.count > 5 {
          guard args.count == 7, args.is(5, "count") else { return .error(RedisError.syntax) }
          guard let n = args.saturatingInteger(6), n > 0 else {
            return .error("ERR COUNT must be > 0")
          }
          count = n
        }
        let version = call.session.protocolVersion
        return pins.top(longitude: lon, latitude: lat, radius: r * unit, count: count).reply {
          MapSearchReply.reply(
            $0, next: nil, withDistance: true, withCoordinates: false, unit: unit, paged: false,
            protocol: version)
        }
      },
      CommandSpec("pin.search", arity: -3, flags: .needsAccount) { [pins] call in
        switch PinSearchArguments.parse(call.arguments, pins: pins) {
        case .failure(let error): return .error(error.message)
        case .success(let request):
          let version = call.session.protocolVersion
          return pins.search(request.query).reply { hits, next in
            MapSearchReply.reply(
              hits, next: next, withDistance: request.withDistance,
              withCoordinates: request.withCoordinates, unit: request.unit,
              paged: request.paged, protocol: version)
          }
        }
      },
    ]
  }

  /// A change, started once the arguments are read.
  typealias Change = @Sendable (@escaping Pins.Done<Pin>) -> Void

  /// A command that changes a pin as the signed-in account and answers the pin once durable.
  private func write(
    _ name: String, arity: Int, _ prepare: @escaping @Sendable (Invocation, Int64) -> Change
  ) -> CommandSpec {
    CommandSpec(name, arity: arity, flags: [.needsAccount, .write]) { [pins] call in
      guard let account = call.session.account else { return .error(RedisError.needsAccount) }
      let change = prepare(call, account)
      call.pending = { answer in
        change { answer($0.reply { .bulkString(ByteBuffer(bytes: pins.summary($0))) }) }
      }
      return .null
    }
  }

  static func id(_ call: Invocation, _ i: Int) -> Int64? {
    call.arguments.integer(i).map(Int64.init)
  }

  static let badPoint = PinError.invalid("location", "longitude -180..180, latitude -90..90")
  static let unitError = "unsupported unit provided. please use M, KM, FT, MI"
}

extension PinHit: MapSearchHit {
  public func withSummary(_ body: (UnsafeRawBufferPointer) -> Void) {
    summary.withUnsafeBytes(body)
  }
}

extension Result where Failure == PinError {
  func reply(_ format: (Success) -> RESPValue) -> RESPValue {
    switch self {
    case .success(let value): format(value)
    case .failure(let error): .error(error.message)
    }
  }
}
