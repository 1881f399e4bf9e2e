import CardCommands
import Venues

extension CardDomainModule {
  /// Venues and check-ins (VENUE.*, CHECKIN*, CHECKOUT, FAVORITE.*, DEPENDANT.*, EXPOSURE*),
  /// built on the accounts. Without a geocoder of its own, VENUE.CREATE uses the cards'.
  public static func venues(_ configuration: Venues.Configuration = .init()) -> CardDomainModule {
    CardDomainModule(name: "venues", migrations: Venues.migrations) { domain in
      var configuration = configuration
      if configuration.geocoder == nil {
        configuration.geocoder = domain.cards.configuration.geocoder
      }
      let venues = try Venues(
        store: domain.store, accounts: domain.accounts, notifier: domain.notifier,
        configuration: configuration)
      domain.services.register(venues)
      return VenueCommands(venues: venues, accounts: domain.accounts).all
        + ExposureCommands(venues: venues, accounts: domain.accounts).all
    }
  }
}
