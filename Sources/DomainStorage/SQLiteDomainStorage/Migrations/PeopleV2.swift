import GRDB
import Store

extension SQLiteExchanges {
  /// people-v2: the key PEOPLE.NEARBY's distances are moved under, kept with the ids' keys so
  /// that a restart moves each distance as before. Shipped: frozen.
  static let peopleV2 = StoreMigration(
    "people-v2",
    sql: "INSERT INTO id_keys (purpose, key) VALUES ('distances', randomblob(32))")
}
