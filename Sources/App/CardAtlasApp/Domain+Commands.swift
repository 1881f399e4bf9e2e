import AccountCommands
import AssetCommands
import CardCommands
import DocumentCommands
import GeocodeCommands
import PeopleCommands
import PinCommands
import Server
import VenueCommands

extension Domain {
  /// The RESP door: every command over this domain, AUTH's sign-in to its accounts, and the
  /// demo cards of `serve --demo`.
  public var commands: ServerExtension.Parts {
    var parts = AccountCommands.parts(accounts)
    parts.commands += CardCommands(cards: cards, views: views, wallets: wallets).all
    parts.commands += WalletCommands(wallets: wallets, cards: cards).all
    parts.commands += NoticeCommands(notices: notices, views: views, wallets: wallets).all
    parts.commands += PinCommands(pins: pins).all
    parts.commands += PeopleCommands(people: people, cards: cards).all
    parts.commands += VenueCommands(venues: venues, accounts: accounts).all
    parts.commands += ExposureCommands(venues: venues, accounts: accounts).all
    parts.commands += DocumentCommands(documents: documents).all
    parts.commands += AssetCommands(assets: assets).all
    if let geocoder { parts.commands += GeocodeCommands(geocoder).all }
    parts.loadDemo = { [accounts, cards] in
      try DemoCards.loadIfEmpty(accounts: accounts, cards: cards)
    }
    return parts
  }
}
