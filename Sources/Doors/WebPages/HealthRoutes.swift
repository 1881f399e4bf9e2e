import Hummingbird

/// Whether a node should be sent traffic (`GET /readyz`): an embedded daemon once it has
/// loaded; a node over PostgreSQL once loaded and while it keeps up with the change feed.
public enum Readiness: Sendable, Equatable {
  case ready
  case notReady(String)
}

/// `GET /healthz`: the process answers (a liveness probe restarts it when it does not).
/// `GET /readyz`: 200 when ready, else 503 and why (a load balancer's or Kubernetes' readiness
/// probe). Plain text, never cached.
struct HealthRoutes: Sendable {
  let readiness: @Sendable () -> Readiness

  func add(to router: Router<PageContext>) {
    router.get("/healthz") { _, _ in Self.text(.ok, "ok") }
    router.get("/readyz") { [readiness] _, _ in
      switch readiness() {
      case .ready: Self.text(.ok, "ready")
      case .notReady(let why): Self.text(.serviceUnavailable, "not ready: " + why)
      }
    }
  }

  static func text(_ status: HTTPResponse.Status, _ line: String) -> Response {
    Response(
      status: status,
      headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
      body: ResponseBody(byteBuffer: ByteBuffer(string: line + "\n")))
  }
}
