import Accounts
import CardCommands
import Commands
import ErrorLines
import NIOCore
import QRCodes
import RESP
import Venues

/// VENUE.*, CHECKIN*, CHECKOUT, FAVORITE.* and DEPENDANT.*: each reads its arguments, calls
/// `Venues` as the signed-in account, and answers writes once durable. The rules are in
/// `Venues`.
public struct VenueCommands: Sendable {
  let venues: Venues
  let accounts: Accounts

  public init(venues: Venues, accounts: Accounts) {
    self.venues = venues
    self.accounts = accounts
  }

  public var all: [CommandSpec] { venueCommands + checkInCommands + peopleCommands }

  private var venueCommands: [CommandSpec] {
    [
      later("venue.create", arity: 2) { [venues] call, owner in
        let json = call.arguments.string(1)
        return .run { answer in
          venues.create(owner: owner, json: json) {
            answer($0.reply { VenueJSON.bulk(VenueJSON.venue($0)) })
          }
        }
      },
      now("venue.get", arity: 2) { [venues] call, _ in
        guard let id = Self.id(call, 1), let venue = venues.venue(id) else {
          return .error(VenueError.notFound("no such venue").message)
        }
        return VenueJSON.bulk(VenueJSON.venue(venue))
      },
      now("venue.mine", arity: 1) { [venues] _, owner in
        VenueJSON.array(venues.venues(of: owner).map(VenueJSON.venue))
      },
      now("venue.code", arity: 2) { [venues] call, owner in
        guard let id = Self.id(call, 1) else { return Self.noVenue }
        return venues.code(owner: owner, venue: id).reply { .bulkString(ByteBuffer(string: $0)) }
      },
      // VENUE.QR <id> PNG|SVG|JPEG [SIZE n] [TRANSPARENT] [ECC L|M|Q|H]: the check-in code
      // as a QR code image, for the venue's poster; the owner's only, like VENUE.CODE.
      CommandSpec("venue.qr", arity: -3, flags: .needsAccount) { [venues] call in
        guard let owner = call.session.account else { return .error(RedisError.needsAccount) }
        let options: QROptions
        switch QRArguments.parse(call.arguments, from: 2) {
        case .failure(let error): return .error(error.message)
        case .success(let parsed): options = parsed
        }
        guard let id = Self.id(call, 1) else { return Self.noVenue }
        switch venues.code(owner: owner, venue: id) {
        case .failure(let error): return .error(error.message)
        case .success(let code):
          call.replyBytes = QRArguments.replyBytes(options)
          call.pending = QRArguments.draw(venues.checkInLink(code: code), options)
          return .null
        }
      },
      later("venue.rotate", arity: 2) { [venues] call, owner in
        guard let id = Self.id(call, 1) else { return .reply(Self.noVenue) }
        return .run { answer in
          venues.rotate(owner: owner, venue: id) {
            answer($0.reply { .bulkString(ByteBuffer(string: $0)) })
          }
        }
      },
      now("venue.visitors", arity: -2) { [venues, accounts] call, owner in
        guard let id = Self.id(call, 1) else { return Self.noVenue }
        switch Window.parse(call.arguments, from: 2) {
        case .failure(let error): return .error(error.message)
        case .success(let w):
          return venues.visitors(owner: owner, venue: id, from: w.from, to: w.to, count: w.count)
            .reply { VenueJSON.array($0.map { VenueJSON.visitor($0, venues, accounts) }) }
        }
      },
    ]
  }

  private var checkInCommands: [CommandSpec] {
    [
      // CHECKIN <code> [<lon> <lat>] [WITH <dependantId>...]
      later("checkin", arity: -2) { [venues] call, account in
        let args = call.arguments
        // The code, or the URL of its page that the venue's QR code holds.
        let code = Venues.code(scanned: args.string(1))
        var i = 2
        var position: (longitude: Double, latitude: Double)?
        if i < args.count, !args.is(i, "with") {
          guard i + 1 < args.count else { return .reply(.error(RedisError.syntax)) }
          guard let lon = args.double(i), let lat = args.double(i + 1) else {
            return .reply(.error(RedisError.notFloat))
          }
          position = (lon, lat)
          i += 2
        }
        var dependants: [Int64] = []
        if i < args.count {
          guard args.is(i, "with"), i + 1 < args.count else {
            return .reply(.error(RedisError.syntax))
          }
          for j in i + 1..<args.count {
            guard let id = args.integer(j) else {
              return .reply(
                .error(VenueError.notFound("no such dependant: \(args.string(j))").message))
            }
            dependants.append(Int64(id))
          }
          guard dependants.count <= Venues.maxDependants else {
            return .reply(
              .error(VenueError.limit("at most \(Venues.maxDependants) dependants").message))
          }
        }
        return .run { [position, dependants] answer in
          venues.checkIn(account: account, code: code, at: position, with: dependants) {
            answer($0.reply { VenueJSON.bulk(VenueJSON.checkIn($0, venues)) })
          }
        }
      },
      later("checkout", arity: 1) { [venues] _, account in
        .run { answer in
          venues.checkOut(account: account) {
            answer($0.reply { VenueJSON.bulk(VenueJSON.checkIn($0, venues)) })
          }
        }
      },
      now("checkin.last", arity: 1) { [venues] _, account in
        venues.lastVisit(account: account).map { VenueJSON.bulk(VenueJSON.visit($0, venues)) }
          ?? .null
      },
      now("checkin.history", arity: -1) { [venues] call, account in
        switch Window.parse(call.arguments, from: 1) {
        case .failure(let error): return .error(error.message)
        case .success(let w):
          return VenueJSON.array(
            venues.history(account: account, from: w.from, to: w.to, count: w.count).map {
              VenueJSON.visit($0, venues)
            })
        }
      },
    ]
  }

  private var peopleCommands: [CommandSpec] {
    [
      later("favorite.add", arity: 2) { [venues] call, account in
        guard let id = Self.id(call, 1) else { return .reply(Self.noVenue) }
        return .run { answer in
          venues.addFavorite(account: account, venue: id) {
            answer($0.reply { .integer($0 ? 1 : 0) })
          }
        }
      },
      later("favorite.del", arity: 2) { [venues] call, account in
        guard let id = Self.id(call, 1) else { return .reply(.integer(0)) }
        return .run { answer in
          venues.removeFavorite(account: account, venue: id) {
            answer($0.reply { .integer($0 ? 1 : 0) })
          }
        }
      },
      now("favorite.list", arity: 1) { [venues] _, account in
        VenueJSON.array(venues.favorites(account: account).map(VenueJSON.venue))
      },
      later("dependant.add", arity: 2) { [venues] call, account in
        let name = call.arguments.string(1)
        return .run { answer in
          venues.addDependant(account: account, name: name) {
            answer($0.reply { VenueJSON.bulk(VenueJSON.dependant($0)) })
          }
        }
      },
      later("dependant.del", arity: 2) { [venues] call, account in
        guard let id = Self.id(call, 1) else {
          return .reply(.error(VenueError.notFound("no such dependant").message))
        }
        return .run { answer in
          venues.removeDependant(account: account, id: id) { answer($0.reply { .integer(1) }) }
        }
      },
      now("dependant.list", arity: 1) { [venues] _, account in
        VenueJSON.array(venues.dependants(account: account).map(VenueJSON.dependant))
      },
    ]
  }

  static let noVenue = RESPValue.error(VenueError.notFound("no such venue").message)

  static func id(_ call: Invocation, _ i: Int) -> Int64? {
    call.arguments.integer(i).map(Int64.init)
  }

  /// What a command that answers later does once its arguments are read: answer at once (a
  /// refusal), or start its work.
  enum Start {
    case reply(RESPValue)
    case run(PendingReply)
  }

  /// A command run as the signed-in account, answered at once.
  func now(
    _ name: String, arity: Int, _ body: @escaping @Sendable (Invocation, Int64) -> RESPValue
  ) -> CommandSpec {
    CommandSpec(name, arity: arity, flags: .needsAccount) { call in
      guard let account = call.session.account else { return .error(RedisError.needsAccount) }
      return body(call, account)
    }
  }

  /// A command run as the signed-in account whose reply comes once its write is durable.
  func later(
    _ name: String, arity: Int, _ prepare: @escaping @Sendable (Invocation, Int64) -> Start
  ) -> CommandSpec {
    CommandSpec(name, arity: arity, flags: [.needsAccount, .write]) { call in
      guard let account = call.session.account else { return .error(RedisError.needsAccount) }
      switch prepare(call, account) {
      case .reply(let value): return value
      case .run(let pending):
        call.pending = pending
        return .null
      }
    }
  }
}
