import PostgresStore
import Testing

@Suite("PostgreSQL URLs")
struct PostgresLocationTests {
  @Test("hosts, ports, user, password and database are read as libpq reads them")
  func reads() throws {
    let one = try PostgresLocation(url: "postgresql://alice:s%40cret@db.example:6543/cards")
    #expect(one.hosts == [.init(name: "db.example", port: 6543)])
    #expect(one.username == "alice" && one.password == "s@cret" && one.database == "cards")
    #expect(one.tls == .prefer)
    #expect(one.description == "postgresql://alice@db.example:6543/cards", "no password in logs")

    let many = try PostgresLocation(
      url: "postgres://app@10.0.0.1,10.0.0.2:5433,[::1]:5434/cardatlas?sslmode=disable")
    #expect(
      many.hosts == [
        .init(name: "10.0.0.1", port: 5432), .init(name: "10.0.0.2", port: 5433),
        .init(name: "::1", port: 5434),
      ])
    #expect(many.username == "app" && many.password == nil && many.tls == .disable)
    #expect(try PostgresLocation(url: "postgresql://h/d").username == "postgres")
  }

  @Test(
    "a malformed URL is refused with the reason",
    arguments: [
      ("mysql://h/d", "postgresql://"), ("postgresql://h", "no database"),
      ("postgresql://h/", "no database"), ("postgresql://h:99999/d", "bad port"),
      ("postgresql://h:x/d", "bad port"), ("postgresql://h,/d", "empty"),
      ("postgresql://h/d?sslmode=maybe", "sslmode"), ("postgresql://h/d?timeout=3", "unknown"),
      ("postgresql://@h/d", "user name"),
    ])
  func refuses(url: String, reason: String) {
    #expect {
      try PostgresLocation(url: url)
    } throws: { error in
      "\(error)".contains(reason) && "\(error)".hasPrefix("invalid PostgreSQL URL")
    }
  }
}
