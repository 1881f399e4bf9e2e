import Cards
import Commands
import ErrorLines
import NIOCore
import RESP

/// CARD.*: each reads its arguments, calls `Cards` as the signed-in account, and answers once
/// the change is durable. The rules are in `Cards`.
public struct CardCommands: Sendable {
  let cards: Cards
  let views: CardViews
  let wallets: Wallets

  public init(cards: Cards, views: CardViews, wallets: Wallets) {
    self.cards = cards
    self.views = views
    self.wallets = wallets
  }

  public var all: [CommandSpec] {
    [
      write("card.create", arity: 2) { call, owner in
        let json = call.arguments.string(1)
        return { done in cards.create(owner: owner, json: json, done) }
      },
      write("card.update", arity: 3) { call, owner in
        let (id, patch) = (Self.id(call, 1), call.arguments.string(2))
        return { done in
          guard let id else { return done(.failure(.notFound)) }
          cards.update(owner: owner, id: id, patch: patch, done)
        }
      },
      write("card.primary", arity: 2) { call, owner in
        let id = Self.id(call, 1)
        return { done in
          guard let id else { return done(.failure(.notFound)) }
          cards.makePrimary(owner: owner, id: id, done)
        }
      },
      // CARD.LOCATE <id> <lon> <lat>, or CARD.LOCATE <id> ADDRESS (geocodes the card's address).
      write("card.locate", arity: -3) { call, owner in
        let id = Self.id(call, 1)
        if call.arguments.count == 3, call.arguments.is(2, "address") {
          return { done in
            guard let id else { return done(.failure(.notFound)) }
            guard let geocoder = cards.configuration.geocoder else {
              return done(.failure(.geocoding("no geocoder is configured")))
            }
            cards.locateByAddress(owner: owner, id: id, geocoder: geocoder, done)
          }
        }
        guard call.arguments.count == 4 else {
          return { done in done(.failure(.badQuery("syntax error"))) }
        }
        let (lon, lat) = (call.arguments.double(2), call.arguments.double(3))
        return { done in
          guard let id else { return done(.failure(.notFound)) }
          guard let lon, let lat else {
            return done(.failure(.badQuery("value is not a valid float")))
          }
          cards.locate(owner: owner, id: id, longitude: lon, latitude: lat, done)
        }
      },
      // The admin's import (`cardatlas import`): [outcome, card id], once durable.
      CommandSpec("card.import", arity: 4, flags: .write) { call in
        let args = call.arguments
        let (email, externalId, json) = (args.string(1), args.string(2), args.string(3))
        call.pending = { [cards] answer in
          cards.importCard(ownerEmail: email, externalId: externalId, json: json) { result in
            answer(
              result.reply { card, outcome in
                .array([.bulkString(ByteBuffer(string: outcome.rawValue)), .integer(Int(card.id))])
              })
          }
        }
        return .null
      },
      CommandSpec("card.del", arity: 2, flags: .needsAccount) { call in
        guard let owner = call.session.account else { return .error(RedisError.needsAccount) }
        guard let id = Self.id(call, 1) else { return .error(CardError.notFound.message) }
        call.pending = { [cards] answer in
          cards.delete(owner: owner, id: id) { answer($0.reply { .integer(1) }) }
        }
        return .null
      },
      CommandSpec("card.get", arity: 2, flags: .needsAccount) { call in
        guard let viewer = call.session.account else { return .error(RedisError.needsAccount) }
        switch wallets.card(call.arguments.string(1), readBy: viewer, client: call.session.client) {
        case .failure(let error): return .error(error.message)
        case .success(let card):
          return Self.viewed(card, by: viewer, &call, views, CardJSON.reply(card, cards: cards))
        }
      },
      // CARD.VCARD <id|code> [3|4]: the card as CARD.GET would show it, as a vCard (3.0 by
      // default). Not a view: saving a contact is not opening the card.
      CommandSpec("card.vcard", arity: -2, flags: .needsAccount) { call in
        guard call.arguments.count <= 3 else { return .error(RedisError.syntax) }
        guard let viewer = call.session.account else { return .error(RedisError.needsAccount) }
        var version = VCardVersion.v3
        if call.arguments.count == 3 {
          guard let chosen = call.arguments.integer(2).flatMap(VCardVersion.init(rawValue:)) else {
            return .error("ERR vCard version must be 3 or 4")
          }
          version = chosen
        }
        switch wallets.card(call.arguments.string(1), readBy: viewer, client: call.session.client) {
        case .failure(let error): return .error(error.message)
        case .success(let card):
          return .bulkString(ByteBuffer(string: cards.vCard(card, version: version)))
        }
      },
      qr,
      CommandSpec("card.mine", arity: 1, flags: .needsAccount) { call in
        guard let owner = call.session.account else { return .error(RedisError.needsAccount) }
        return .array(cards.cards(of: owner).map { CardJSON.reply($0, cards: cards) })
      },
      CommandSpec("card.open", arity: -2, flags: .needsAccount) { call in
        guard call.arguments.count <= 3 else { return .error(RedisError.syntax) }
        let slug = call.arguments.count == 3 ? call.arguments.string(2) : nil
        guard let viewer = call.session.account else { return .error(RedisError.needsAccount) }
        let opened = cards.open(
          username: call.arguments.string(1), slug: slug, viewer: viewer,
          client: call.session.client)
        switch opened {
        case .failure(let error): return .error(error.message)
        case .success(.card(let card)):
          return Self.viewed(
            card, by: viewer, &call, views,
            CardJSON.bulk(["state": "card", "card": CardJSON.object(card, cards: cards)]))
        case .success(.inactive):
          return CardJSON.bulk([
            "state": "inactive", "message": OpenedCard.inactiveMessage,
            "createCardUrl": cards.createCardURL,
          ])
        case .success(.placeholder):
          return CardJSON.bulk(["state": "placeholder", "message": OpenedCard.placeholderMessage])
        case .success(.notFound):
          return CardJSON.bulk(["state": "notfound"])
        }
      },
      CommandSpec("card.clusters", arity: -6, flags: .needsAccount) { call in
        let args = call.arguments
        guard let box = args.bounds(from: 1) else {
          return .error("ERR invalid bounds")
        }
        guard let zoom = args.saturatingInteger(5) else { return .error(RedisError.notInteger) }
        var filters: [CardFilter] = []
        var i = 6
        while i < args.count {
          guard args.is(i, "filter"), i + 2 < args.count,
            let filter = CardSearchArguments.filter(args, i)
          else { return .error(RedisError.syntax) }
          filters.append(filter)
          i += 3
        }
        return cards.clusters(in: box, zoom: zoom, filters: filters).reply {
          .bulkString(ByteBuffer(bytes: CardGeoJSON.featureCollection($0)))
        }
      },
      CommandSpec("card.search", arity: -3, flags: .needsAccount) { call in
        switch CardSearchArguments.parse(call.arguments) {
        case .failure(let error): return .error(error.message)
        case .success(var request):
          if request.new, let account = call.session.account {
            request.query.excluded = wallets.seen(by: account)
          }
          let version = call.session.protocolVersion
          return cards.search(request.query) { hits, next in
            Self.searchReply(hits, next: next, request, protocol: version)
          }.reply { $0 }
        }
      },
    ]
  }

  /// A change to a card, started once the arguments are read.
  typealias Change = @Sendable (@escaping Cards.Done<Card>) -> Void

  /// A command that changes a card as the signed-in account and answers the card once durable.
  private func write(
    _ name: String, arity: Int, _ prepare: @escaping @Sendable (Invocation, Int64) -> Change
  ) -> CommandSpec {
    CommandSpec(name, arity: arity, flags: [.needsAccount, .write]) { [cards] call in
      guard let owner = call.session.account else { return .error(RedisError.needsAccount) }
      let change = prepare(call, owner)
      call.pending = { answer in
        change { answer($0.reply { CardJSON.reply($0, cards: cards) }) }
      }
      return .null
    }
  }

  /// Answers an opened card, once its view is stored if it counts as a new one. The view is
  /// the open's side effect: a view that could not be stored still answers the card.
  static func viewed(
    _ card: Card, by viewer: Int64, _ call: inout Invocation, _ views: CardViews,
    _ reply: RESPValue
  ) -> RESPValue {
    guard let record = views.opened(card, by: .account(viewer)) else { return reply }
    call.pending = { answer in record { _ in answer(reply) } }
    return .null
  }

  static func id(_ call: Invocation, _ i: Int) -> Int64? {
    call.arguments.integer(i).map(Int64.init)
  }

  static func searchReply(
    _ hits: [CardHitView], next: CardCursor?, _ request: CardSearchArguments,
    protocol version: RESPProtocolVersion
  ) -> RESPValue {
    MapSearchReply.reply(
      hits, next: next, withDistance: request.withDistance,
      withCoordinates: request.withCoordinates, unit: request.unit, paged: request.paged,
      protocol: version)
  }
}
