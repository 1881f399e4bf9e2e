import DaemonTestSupport

@testable import LoadGen

extension TestDaemon {
  /// Where the load generator reaches the daemon's RESP port.
  var address: ServerAddress { ServerAddress(host: "127.0.0.1", port: Int(port)) }
}
