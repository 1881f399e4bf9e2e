import CardCommands
import MediaFiles
import Pins

extension CardDomainModule {
  /// Photo pins (GeoPic): their migrations, and PIN.* once the accounts have started. Photos
  /// are files in `<data>/media/pins`.
  public static func pins(_ configuration: Pins.Configuration = .init()) -> CardDomainModule {
    CardDomainModule(name: "pins", migrations: Pins.migrations) { domain in
      let media = try MediaFiles(directory: domain.store.directory + "/media/pins")
      let pins = try Pins(
        store: domain.store, accounts: domain.accounts, media: media,
        configuration: configuration)
      return PinCommands(pins: pins).all
    }
  }
}
