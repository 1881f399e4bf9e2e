import Durability
import PostgresNIO
import PostgresStore

extension PostgresStore {
  /// Commits `writes`, answering a failure raised with SQLSTATE `state` (a bound the database
  /// keeps for every node: a unique index, a room function) as `refusal()`, the domain's word
  /// for it.
  func commit(
    _ writes: [any DurableWrite], refusing state: String,
    as refusal: @escaping @Sendable () -> any Error,
    completion: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    commit(writes) { result in
      completion(
        result.mapError { error in
          (error as? PSQLError)?.serverInfo?[.sqlState] == state ? refusal() : error
        })
    }
  }
}
