import Accounts
import Durability
import Foundation

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
    // Rows are applied in the order they come, an invited owner's included: its account is
    // registered at once and written before its card.
    let checked = Self.importRow(
      externalId: externalId, json: json, read: read,
      owner: { accounts.account(email: ownerEmail) },
      invite: { accounts.invite(email: ownerEmail) })
    switch checked {
    case .failure(let error): done(.failure(error))
    case .success(let row):
      upsert(owner: row.owner, externalId: row.externalId, fields: row.fields, done)
    }
  }

  /// The rules of an import's row before its card, wherever the accounts are held (here, or
  /// the store itself: `CardBulkImport`): the external id is one line of at most 200 bytes
  /// (trimmed); the fields are checked against the owner's plan (not Pro for an owner to
  /// invite); an owner without an account (`owner` gives none) is invited. A row refused
  /// invites no one.
  static func importRow(
    externalId: String, json: String, read: CardFields?, owner: () throws -> Account?,
    invite: () throws -> Result<Account, AccountError>
  ) rethrows -> Result<(owner: Account, externalId: String, fields: CardFields), CardError> {
    let trimmed = externalId.trimmed(.whitespaces)
    guard !trimmed.isEmpty, trimmed.utf8.count <= Self.maximumExternalIdBytes,
      !trimmed.contains(where: \.isNewline)
    else {
      return .failure(
        .invalid(
          CardFieldError(
            field: "externalId",
            reason: "required: one line of at most \(Self.maximumExternalIdBytes) bytes")))
    }
    let known = try owner()
    let fields: CardFields
    do throws(CardFieldError) {
      fields = try CardFields.parse(json, isPro: known?.isPro ?? false, readAs: read)
    } catch {
      return .failure(.invalid(error))
    }
    if let known { return .success((known, trimmed, fields)) }
    switch try invite() {
    case .success(let invited): return .success((invited, trimmed, fields))
    case .failure(.invalid(_, let reason)):
      return .failure(.invalid(CardFieldError(field: "ownerEmail", reason: reason)))
    case .failure(let error):
      return .failure(.ownerNotCreated(error))
    }
  }

  /// An imported card given a row's fields again: changed and touched now, or nil when it
  /// already holds exactly these (nothing is written).
  static func reimported(_ card: Card, with fields: CardFields) -> Card? {
    guard card.fields != fields else { return nil }
    var card = card
    card.fields = fields
    card.updatedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded())
    return card
  }

  private func upsert(
    owner: Account, externalId: String, fields: CardFields,
    _ done: @escaping Done<(card: Card, outcome: ImportOutcome)>
  ) {
    let key = ExternalKey(owner: owner.id, externalId: externalId)
    var before: Card?
    let made = state.withLock { s -> Result<(Card, ImportOutcome, Bool), CardError> in
      if let id = s.card(imported: key), let held = s.cards[id] {
        guard let card = Self.reimported(held, with: fields) else {
          return .success((held, .unchanged, false))
        }
        if let refused = claim(card) { return .failure(refused) }
        before = held
        s.save(card)
        return .success((card, .updated, false))
      }
      return newCard(owner: owner.id, owner.isPro, fields, &s).map { card, wasReserved in
        s.setExternalId(externalId, of: card.id, owner: owner.id)
        return (card, .created, wasReserved)
      }
    }
    switch made {
    case .failure(let error): done(.failure(error))
    case .success((let card, .unchanged, _)): done(.success((card, .unchanged)))
    case .success((let card, .updated, _)):
      finish(.success((before ?? card, card))) { done($0.map { ($0, .updated) }) }
    case .success((let card, _, let wasReserved)):
      place(card)
      let plan = configuration.plan(isPro: owner.isPro)
      let write = storage.inserting(
        card, externalId: externalId, takingReservedURL: wasReserved, plan: plan)
      commit([write], saving: [card.id], plan: plan) { [self] result in
        if case .failure(let error) = result { undo(card, reservedURL: wasReserved, error) }
        done(result.map { (card, .created) })
      }
    }
  }
}
