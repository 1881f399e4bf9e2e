import Accounts
import Assets
import ErrorLines
import Hummingbird
import NIOCore

/// Uploads over HTTP (`PUT /v1/assets?kind=image|logo|cv`, signed in with a Bearer session
/// token, through the same `Assets.put` as ASSET.PUT) and the uploaded files (`GET /a/<id>`).
struct AssetRoutes: Sendable {
  let assets: Assets
  let accounts: Accounts

  func add(to router: Router<PageContext>) {
    router.put("/v1/assets") { request, _ in await APIResponse.run { try await put(request) } }
    router.get("/a/:id") { request, context in
      await file(request, context.parameters.get("id") ?? "")
    }
  }

  /// An API route: refusals are `{"error": "..."}` as the rest of /v1's.
  func put(_ request: Request) async throws(APIError) -> Response {
    let owner = try BearerToken.apiAccount(request, accounts)
    guard let kind = request.uri.queryParameters.get("kind").flatMap(AssetKind.init(name:)) else {
      throw Self.refusal(.badKind)
    }
    let limit = assets.configuration.maxBytes
    let tooLarge = Self.refusal(.size(maximum: limit))
    if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
      throw tooLarge
    }
    let body: ByteBuffer
    do { body = try await request.body.collect(upTo: limit) } catch { throw tooLarge }
    // No file at all is a malformed request, not one too large.
    guard body.readableBytes > 0 else {
      throw APIError(.badRequest, AssetError.size(maximum: limit).message)
    }
    let bytes = Array(body.readableBytesView)
    let stored = await withCheckedContinuation {
      (done: CheckedContinuation<Result<Asset, AssetError>, Never>) in
      assets.put(owner: owner, kind: kind, bytes: bytes) { done.resume(returning: $0) }
    }
    switch stored {
    case .failure(let error): throw Self.refusal(error)
    case .success(let asset):
      let url = assets.url(asset.id)
      let headers: HTTPFields = [
        .contentType: "application/json", .location: url, .cacheControl: "no-store",
      ]
      return Response(
        status: .created, headers: headers,
        body: .init(byteBuffer: ByteBuffer(string: asset.json(url: url))))
    }
  }

  /// The file as uploaded. Its id is random and never given to other bytes: cached for good.
  func file(_ request: Request, _ id: String) async -> Response {
    let tag = "\"\(id)\""
    guard let asset = assets.asset(id) else {
      return PageResponse.text("no such asset\n", status: .notFound)
    }
    var headers: HTTPFields = [
      .eTag: tag, .cacheControl: "public, max-age=31536000, immutable",
      .xContentTypeOptions: "nosniff", .contentSecurityPolicy: "default-src 'none'",
    ]
    if request.headers[.ifNoneMatch] == tag {
      return Response(status: .notModified, headers: headers)
    }
    let opened = await withCheckedContinuation {
      (done: CheckedContinuation<Result<(asset: Asset, bytes: [UInt8]), AssetError>, Never>) in
      assets.open(asset.id) { done.resume(returning: $0) }
    }
    guard case .success(let file) = opened else {
      return PageResponse.text("no such asset\n", status: .notFound)
    }
    headers[.contentType] = asset.type.contentType
    // A PDF is saved, not opened in this origin (a viewer's script would run here).
    if asset.type == .pdf {
      headers[.contentDisposition] = "attachment; filename=\"\(asset.kind.rawValue)-\(id).pdf\""
    }
    return Response(
      status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
  }

  /// An upload's refusal: its message, under the status that says why.
  static func refusal(_ error: AssetError) -> APIError {
    if case .limited(let limit) = error { return APIError(limit) }
    let status: HTTPResponse.Status =
      switch error {
      case .badKind: .badRequest
      case .size: .contentTooLarge
      case .type: .unsupportedMediaType
      case .pixels: .unprocessableContent
      case .noAccount: .unauthorized
      case .notFound: .notFound
      case .notPersisted: .internalServerError
      case .quota: .contentTooLarge
      case .limited: .tooManyRequests
      case .tryAgain: .serviceUnavailable
      }
    return APIError(status, error.message)
  }
}
