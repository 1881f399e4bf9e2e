import Assets
import Commands
import ErrorLines
import NIOCore
import RESP

/// ASSET.PUT <IMAGE|LOGO|CV> <bytes>: stores the signed-in account's upload through `Assets`
/// and answers `{"id","url","kind","contentType","bytes"[,"width","height"]}` once durable.
public struct AssetCommands: Sendable {
  let assets: Assets

  public init(assets: Assets) {
    self.assets = assets
  }

  public var all: [CommandSpec] {
    [
      CommandSpec("asset.put", arity: 3, flags: [.needsAccount, .write]) { [assets] call in
        guard let owner = call.session.account else { return .error(RedisError.needsAccount) }
        guard let kind = AssetKind(name: call.arguments.string(1)) else {
          return .error(AssetError.badKind.message)
        }
        let bytes = call.arguments.bytes(2)
        call.pending = { answer in
          assets.put(owner: owner, kind: kind, bytes: bytes) { result in
            switch result {
            case .failure(let error): answer(.error(error.message))
            case .success(let asset):
              answer(.bulkString(ByteBuffer(string: asset.json(url: assets.url(asset.id)))))
            }
          }
        }
        return .null
      }
    ]
  }
}
