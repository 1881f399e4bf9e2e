import Commands
import Dispatch
import FenceCommands
import Foundation
import Keyspace
import KeyspaceStore
import Listeners
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SQLiteHookOutbox
import Store
import Webhooks

/// The daemon: opens the store, loads the keyspace from it, and serves RESP over TCP on every
/// core until told to stop.
public final class CardAtlasServer: Sendable {
  public let configuration: ServerConfiguration
  private let logger: Logger
  private let group: MultiThreadedEventLoopGroup
  private let threadPool: NIOThreadPool
  private let state: ServerState
  private let processor: CommandProcessor
  private let channels = NIOLockedValueBox<[ObjectIdentifier: Channel]>([:])
  private let listener = NIOLockedValueBox<Channel?>(nil)
  private let stopped = NIOLockedValueBox(false)

  /// Opens the store with the extensions' migrations and starts them on it. Call `start()` next.
  public convenience init(
    configuration: ServerConfiguration, extensions: [ServerExtension] = [], logger: Logger
  ) throws {
    let foundation = try ServerFoundation(
      configuration: configuration, migrations: extensions.flatMap(\.migrations), logger: logger)
    do {
      let parts = try extensions.map { try $0.start(foundation.store, foundation.notifier) }
      try self.init(
        configuration: configuration, foundation: foundation, parts: parts, logger: logger)
    } catch {
      foundation.store.close()
      throw error
    }
  }

  /// Loads the keyspace from the open store and serves it with what the domain built on the
  /// same store brings (`parts`). Call `start()` next.
  public convenience init(
    configuration: ServerConfiguration, foundation: ServerFoundation,
    parts: [ServerExtension.Parts], logger: Logger
  ) throws {
    let keyspace = Keyspace()
    let started = DispatchTime.now().uptimeNanoseconds
    let storage = try EmbeddedKeyspace(
      store: foundation.store, fsync: configuration.fsync, keyspace: keyspace, logger: logger)
    let loadedIn = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    logger.info(
      "loaded the store",
      metadata: [
        "directory": "\(configuration.dataDirectory)", "keys": "\(keyspace.read { $0[0].count })",
        "seconds": "\(String(format: "%.2f", loadedIn))",
      ])
    do {
      try self.init(
        configuration: configuration, keyspace: keyspace, storage: storage, hub: foundation.hub,
        parts: parts, logger: logger)
    } catch {
      storage.journal.close()
      throw error
    }
  }

  /// Serves `keyspace`, loaded already from `storage`, with what the domain brings (`parts`);
  /// what the domain publishes reaches `hub`'s subscribers. Call `start()` next.
  public init(
    configuration given: ServerConfiguration, keyspace: Keyspace, storage: any KeyspaceStorage,
    hub: PubSubHub = PubSubHub(), parts: [ServerExtension.Parts], logger: Logger
  ) throws {
    var configuration = given
    configuration.maxClients = DescriptorLimit.fit(
      maxClients: given.maxClients, logger: logger)
    self.configuration = configuration
    self.logger = logger
    let threads = configuration.threads > 0 ? configuration.threads : System.coreCount
    group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
    threadPool = NIOThreadPool(numberOfThreads: 1)
    threadPool.start()
    let webhooks = try Webhooks(
      outbox: SQLiteHookOutbox(
        directory: configuration.dataDirectory, durable: configuration.fsync == .always),
      rules: HookAddressRules(allowInsecure: configuration.hooksAllowInsecure), logger: logger)
    let fences = try KeyspaceFences(
      log: storage.log, keyspace: keyspace, hub: hub, webhooks: webhooks,
      directory: configuration.dataDirectory)
    state = ServerState(
      configuration: configuration, keyspace: keyspace, storage: storage, pubsub: hub,
      fences: fences, shards: threads, logger: logger)
    processor = CommandProcessor(
      keyspace: keyspace, log: fences, environment: state,
      commands: parts.flatMap(\.commands) + fences.commands,
      accounts: parts.lazy.compactMap(\.accounts).first)
    state.statistics.names.withLockedValue { $0 = processor.commandNames }
    if configuration.demo {
      try DemoData.loadIfEmpty(into: processor, logger: logger)
      for load in parts.compactMap(\.loadDemo) { try load() }
    }
    MemoryTuning.releaseFreePages()
  }

  /// Binds and starts accepting connections; returns the bound port.
  @discardableResult
  public func start() async throws -> Int {
    let shards = NIOLockedValueBox<[ObjectIdentifier: Int]>([:])
    var turns: [Turns] = []
    for (i, loop) in group.makeIterator().enumerated() {
      shards.withLockedValue { $0[ObjectIdentifier(loop)] = i }
      turns.append(Turns(eventLoop: loop))
    }
    let bootstrap = ServerBootstrap(group: group)
      .serverChannelOption(ChannelOptions.backlog, value: 1024)
      .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
      // At the descriptor limit, wait rather than spin on the failing accept.
      .serverChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(AcceptPause())
        }
      }
      .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
      .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 16)
      .childChannelInitializer { [state, processor, threadPool, channels, turns] channel in
        let shard = shards.withLockedValue { $0[ObjectIdentifier(channel.eventLoop)] ?? 0 }
        let id = ObjectIdentifier(channel)
        channels.withLockedValue { $0[id] = channel }
        channel.closeFuture.whenComplete { _ in
          _ = channels.withLockedValue { $0.removeValue(forKey: id) }
        }
        return channel.eventLoop.makeCompletedFuture {
          let timeout = state.idleTimeout
          if timeout > 0 {
            try channel.pipeline.syncOperations.addHandler(
              IdleStateHandler(readTimeout: .seconds(Int64(timeout))))
          }
          try channel.pipeline.syncOperations.addHandler(
            ConnectionHandler(
              state: state, processor: processor, threadPool: threadPool, shard: shard,
              turns: turns[shard]))
        }
      }
    let channel = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
    listener.withLockedValue { $0 = channel }
    let port = channel.localAddress?.port ?? configuration.port
    group.next().scheduleRepeatedTask(initialDelay: .milliseconds(100), delay: .milliseconds(100)) {
      [state] _ in state.sampleOperations()
    }
    logger.info(
      "ready to accept connections",
      metadata: [
        "host": "\(configuration.host)", "port": "\(port)",
        "fsync": "\(configuration.fsync.rawValue)",
      ])
    return port
  }

  /// Graceful shutdown: stop accepting, let every connection finish the commands it has read
  /// (their writes made durable), close them, then close the store.
  public func stop() async {
    guard
      stopped.withLockedValue({ s in
        defer { s = true }
        return !s
      })
    else { return }
    logger.info("shutting down")
    if let channel = listener.withLockedValue({ $0 }) { try? await channel.close() }
    let open = channels.withLockedValue { Array($0.values) }
    for channel in open {
      channel.pipeline.fireUserInboundEventTriggered(ConnectionHandler.Drain())
    }
    let deadline = DispatchTime.now().uptimeNanoseconds + 5_000_000_000
    while !channels.withLockedValue({ $0.isEmpty })
      && DispatchTime.now().uptimeNanoseconds < deadline
    {
      try? await Task.sleep(nanoseconds: 10_000_000)
    }
    for channel in channels.withLockedValue({ Array($0.values) }) { try? await channel.close() }
    await state.storage.close()
    state.fences.webhooks.shutdown()
    try? await threadPool.shutdownGracefully()
    try? await group.shutdownGracefully()
    logger.info("stopped")
  }
}
