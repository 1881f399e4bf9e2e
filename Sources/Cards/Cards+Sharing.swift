extension Cards {
  /// The share URL of a card `viewer` may see (as `card(_:viewer:)` decides), for its QR code.
  /// An inactive card has none, not even for its owner: its link says it is no longer active.
  public func shareURL(_ idOrCode: String, viewer: Int64) -> Result<String, CardError> {
    guard let card = card(idOrCode, viewer: viewer) else { return .failure(.notFound) }
    guard let url = url(of: card) else { return .failure(.inactive) }
    return .success(url)
  }
}
