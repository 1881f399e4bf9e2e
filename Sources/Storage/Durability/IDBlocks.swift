/// Where new ids come from when many nodes write one store: each node gives ids from blocks the
/// store hands it, so two nodes never give the same one. The embedded store has none: its one
/// writer counts on from the highest id stored.
public protocol IDBlocks: Sendable {
  /// The next id of this node's block; nil when the block ran out before the next came (the
  /// caller refuses, to be retried). Never waits: it is called under a domain's lock, and the
  /// next block is fetched while part of this one is left.
  func next() -> Int64?
}
