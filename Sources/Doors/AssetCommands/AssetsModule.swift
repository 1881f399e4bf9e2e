import Assets
import CardCommands
import MediaFiles

extension CardDomainModule {
  /// Uploaded profile images, logos and CVs (ASSET.PUT; served over HTTP at /a/<id>). Files
  /// are in `<data>/media/assets`; URLs have the cards' public URL as their base.
  public static func assets(_ configuration: Assets.Configuration = .init()) -> CardDomainModule {
    CardDomainModule(name: "assets", migrations: Assets.migrations) { domain in
      var configuration = configuration
      configuration.publicURL = domain.cards.configuration.publicURL
      let media = try MediaFiles(directory: domain.store.directory + "/media/assets")
      let assets = try Assets(
        store: domain.store, accounts: domain.accounts, cards: domain.cards, media: media,
        configuration: configuration)
      domain.services.register(assets)
      return AssetCommands(assets: assets).all
    }
  }
}
