import Accounts
import Foundation
import GRDB
import Store

/// What an import did with a row's card.
public enum ImportOutcome: String, Sendable {
  case created
  case updated
  /// The card already held exactly these fields: nothing written.
  case unchanged
}

extension Cards {
  /// Longest external id accepted, in UTF-8 bytes.
  public static let maximumExternalIdBytes = 200

  /// `cardatlas import`'s write (CARD.IMPORT): the card of `ownerEmail` that an import gave
  /// `externalId` gets these fields (a whole card's JSON, as CARD.CREATE takes), or is created
  /// with them within the owner's plan limit. An owner without an account gets one that is
  /// invited: it has no password until it resets one. Importing the same row again changes
  /// nothing.
  ///
  /// `read`, when given, is `CardFields.read(object:)` of the object `json` holds: the import
  /// reads a row's fields without writing and reading JSON.
  public func importCard(
    ownerEmail: String, externalId: String, json: String, read: CardFields? = nil,
    _ done: @escaping Done<(card: Card, outcome: ImportOutcome)>
  ) {
    let trimmed = externalId.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty, trimmed.utf8.count <= Self.maximumExternalIdBytes,
      !trimmed.contains(where: \.isNewline)
    else {
      return done(
        .failure(
          .invalid(
            CardFieldError(
              field: "externalId",
              reason: "required: one line of at most \(Self.maximumExternalIdBytes) bytes"))))
    }
    // Rows are applied in the order they come, an invited owner's included: its account is
    // registered at once and written before its card. A row refused invites no one.
    let owner: Account
    let fields: CardFields
    do throws(CardFieldError) {
      if let known = accounts.account(email: ownerEmail) {
        owner = known
        fields = try CardFields.parse(json, isPro: owner.isPro, readAs: read)
      } else {
        fields = try CardFields.parse(json, isPro: false, readAs: read)
        switch accounts.invite(email: ownerEmail) {
        case .success(let invited): owner = invited
        case .failure(.invalid(_, let reason)):
          return done(.failure(.invalid(CardFieldError(field: "ownerEmail", reason: reason))))
        case .failure(let error):
          return done(.failure(.notPersisted("cannot create the owner's account: \(error.code)")))
        }
      }
    } catch {
      return done(.failure(.invalid(error)))
    }
    upsert(owner: owner, externalId: trimmed, fields: fields, done)
  }

  private func upsert(
    owner: Account, externalId: String, fields: CardFields,
    _ done: @escaping Done<(card: Card, outcome: ImportOutcome)>
  ) {
    let key = ExternalKey(owner: owner.id, externalId: externalId)
    let made = state.withLock { s -> Result<(Card, ImportOutcome, Bool), CardError> in
      if let id = s.byExternalId[key], var card = s.cards[id] {
        guard card.fields != fields else { return .success((card, .unchanged, false)) }
        card.fields = fields
        if let refused = claim(card) { return .failure(refused) }
        card.updatedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded())
        s.cards[id] = card
        return .success((card, .updated, false))
      }
      return newCard(owner: owner.id, owner.isPro, fields, &s).map { card, wasReserved in
        s.externalIds[card.id] = externalId
        s.byExternalId[key] = card.id
        return (card, .created, wasReserved)
      }
    }
    switch made {
    case .failure(let error): done(.failure(error))
    case .success((let card, .unchanged, _)): done(.success((card, .unchanged)))
    case .success((let card, .updated, _)):
      finish(.success(card)) { done($0.map { ($0, .updated) }) }
    case .success((let card, _, let wasReserved)):
      place(card)
      commit([
        TransactionWrite { db in
          try Self.insert(card, externalId: externalId, db)
          if wasReserved {
            try db.execute(
              sql: "DELETE FROM card_reserved_urls WHERE account_id = ?", arguments: [owner.id])
          }
        }
      ]) { done($0.map { (card, .created) }) }
    }
  }
}
