import PostgresNIO

extension PostgresConnection {
  /// Runs `body` while listening on `channel`, `notified` called with each notification; the
  /// LISTEN's answer is not waited for past `timeout` (the connection is then closed). Through
  /// postgres-nio's `listen(on:consume:)`, not its closure listener: a closure listener whose
  /// LISTEN is written to a connection that has just closed is dropped unused, and its deinit
  /// halts the process.
  func whileListening<T>(
    to channel: String, timeout: Duration, on executor: (any TaskExecutor)?,
    notified: @escaping @Sendable (PostgresNotification) -> Void,
    running body: () async throws -> T
  ) async throws -> T {
    let watchdog = Task(executorPreference: executor) {
      try? await Task.sleep(for: timeout)
      if !Task.isCancelled { self.discard() }
    }
    defer { watchdog.cancel() }
    return try await listen(on: channel) { notifications in
      watchdog.cancel()
      // Ends with the connection, or when `body` does.
      let delivering = Task(executorPreference: executor) {
        for try await notification in notifications { notified(notification) }
      }
      defer { delivering.cancel() }
      return try await body()
    }
  }
}
