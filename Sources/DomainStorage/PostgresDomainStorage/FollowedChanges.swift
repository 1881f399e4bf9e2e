import Foundation
import Logging
import PostgresStore
import Synchronization

extension FeedConsumer {
  /// Applies each feed row's sections of `source`, decoded as `Change`, from `position`: `apply`
  /// learns whether this node wrote it (`own`). An unreadable section is logged and skipped.
  static func changes<Change: Decodable>(
    _ type: Change.Type, source: UInt8, after position: FeedPosition, store: PostgresStore,
    logger: Logger, apply: @escaping @Sendable (Change, _ own: Bool) -> Void
  ) -> FeedConsumer {
    FeedConsumer(position: position) { entry in
      for section in entry.sections where section.source == source {
        guard let change = try? JSONDecoder().decode(Change.self, from: Data(section.bytes)) else {
          logger.error(
            "change feed: a section unreadable",
            metadata: ["id": "\(entry.position)", "source": "\(source)"])
          continue
        }
        apply(change, entry.node == store.node)
      }
    }
  }
}

/// What a storage read at start, handed on once to the module that loads it, then let go.
final class LoadedOnce<Value: Sendable>: Sendable {
  private let value: Mutex<Value?>

  init(_ value: Value) { self.value = Mutex(value) }

  /// The value the first time; nil after.
  func take() -> Value? {
    value.withLock { value in
      defer { value = nil }
      return value
    }
  }
}
