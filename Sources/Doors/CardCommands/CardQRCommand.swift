import Cards
import Commands
import ErrorLines
import QRCodes
import RESP

extension CardCommands {
  /// CARD.QR <id|code> PNG|SVG|JPEG [SIZE n] [TRANSPARENT] [ECC L|M|Q|H]: the share URL as a
  /// QR code image, for a card the caller may read (`Wallets.card(_:readBy:client:)`); an
  /// inactive card has none.
  var qr: CommandSpec {
    CommandSpec("card.qr", arity: -3, flags: .needsAccount) { [wallets] call in
      guard let viewer = call.session.account else { return .error(RedisError.needsAccount) }
      let options: QROptions
      switch QRArguments.parse(call.arguments, from: 2) {
      case .failure(let error): return .error(error.message)
      case .success(let parsed): options = parsed
      }
      switch wallets.shareURL(call.arguments.string(1), readBy: viewer, client: call.session.client)
      {
      case .failure(let error): return .error(error.message)
      case .success(let url):
        call.replyBytes = QRArguments.replyBytes(options)
        call.pending = QRArguments.draw(url, options)
        return .null
      }
    }
  }
}
