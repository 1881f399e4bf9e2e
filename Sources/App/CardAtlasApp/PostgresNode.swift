import Commands
import Foundation
import Keyspace
import Logging
import NIOCore
import PostgresKeyspaceStore
import PostgresStore
import Server

/// `serve --store postgresql://…`: a node over a database other nodes share. It serves the GEO
/// keyspace (Redis's commands), loaded from the database and following every node's writes;
/// the card, pin, people and venue services are not on PostgreSQL yet (docs/STORE.md).
public enum PostgresNode {
  /// Connects (migrating the keyspace's tables), loads the keyspace and builds the server;
  /// `start()` binds it.
  public static func open(
    server configuration: ServerConfiguration, url: String,
    retention: FeedRetention = FeedRetention(), logger: Logger
  ) async throws -> CardAtlasServer {
    let location = try PostgresLocation(url: url)
    let store = try await PostgresStore(
      location: location, migrations: KeyspaceTables.migrations, retention: retention,
      logger: logger)
    let keyspace = Keyspace()
    let storage: PostgresKeyspace
    do {
      // Its keyspace is stale from then on: exit, for the supervisor to start it afresh.
      storage = try await PostgresKeyspace(store: store, keyspace: keyspace, logger: logger) {
        exit(EX_TEMPFAIL)
      }
    } catch {
      await store.close()
      throw error
    }
    logger.info(
      "loaded the keyspace from PostgreSQL",
      metadata: [
        "database": "\(location)", "node": "\(store.node)",
        "keys": "\(keyspace.read { $0[0].count })",
      ])
    // What is published here reaches the other nodes' subscribers, and theirs come here.
    let hub = PubSubHub()
    let relay = store.pubsub { channel, message in
      hub.deliver(ByteBuffer(bytes: message), to: channel)
    }
    hub.relay(
      to: PubSubHub.Relay(maximumBytes: PostgresPubSub.maximumBytes) { channel, payload in
        relay.publish(channel: channel, message: Array(buffer: payload))
      })
    do {
      return try CardAtlasServer(
        configuration: configuration, keyspace: keyspace, storage: storage, hub: hub, parts: [],
        logger: logger)
    } catch {
      await storage.close()
      throw error
    }
  }
}
