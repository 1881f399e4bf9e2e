/// One document write as every node applies it, in the order the shared store committed them
/// (`Documents.apply(followed:own:)`).
public enum DocumentChange: Sendable, Equatable, Codable {
  case added(Document)
  case deleted(id: Int64)
  case deletedAll(account: Int64)
}

extension Documents {
  /// Applies a change committed to the shared store; `own` when this node wrote it (memory has
  /// it already). Only a document's owner adds or deletes it.
  public func apply(followed change: DocumentChange, own: Bool) {
    guard !own else { return }
    state.withLock { s in
      switch change {
      case .added(let document):
        guard s.documents[document.id] == nil else { return }
        Self.add(document, &s)
      case .deleted(let id):
        if let document = s.documents[id] { Self.remove(document, &s) }
      case .deletedAll(let account):
        for document in (s.byOwner[account] ?? []).compactMap({ s.documents[$0] }) {
          Self.remove(document, &s)
        }
      }
    }
  }
}
