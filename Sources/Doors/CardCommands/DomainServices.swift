import Synchronization

/// What the started domain modules offer each other and the HTTP side (venues, assets): each
/// module registers its instance as it starts; the hand-over, last, finds them by type.
public final class DomainServices: Sendable {
  private let services = Mutex<[ObjectIdentifier: any Sendable]>([:])

  public init() {}

  public func register<Service: Sendable>(_ service: Service) {
    services.withLock { $0[ObjectIdentifier(Service.self)] = service }
  }

  /// The registered instance of `type`; nil if no module of it started.
  public func find<Service: Sendable>(_ type: Service.Type) -> Service? {
    services.withLock { $0[ObjectIdentifier(type)] } as? Service
  }
}
