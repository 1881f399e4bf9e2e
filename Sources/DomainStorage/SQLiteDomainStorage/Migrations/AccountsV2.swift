import Store

extension SQLiteAccounts {
  /// accounts-v2: an account's ID-token links found by account, as deleting the account
  /// deletes them (accounts-v1 made the table, keyed by provider and subject). Shipped: frozen.
  static let accountsV2 = StoreMigration(
    "accounts-v2",
    sql: """
      CREATE INDEX account_identities_by_account ON account_identities (account_id);
      """)
}
