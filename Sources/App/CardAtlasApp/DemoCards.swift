import Accounts
import Cards
import Datasets
import Dispatch
import Foundation
import Synchronization

/// `serve --demo`: on a store with no accounts, 300 Pro demo accounts of 10 cards each, in and
/// around the world's 600 largest cities, so a newcomer's first CARD.SEARCH finds someone. The
/// accounts have no password (they cannot be signed in to); the same seed gives the same cards.
enum DemoCards {
  static let accounts = 300
  static let cardsPerAccount = 10

  static func loadIfEmpty(accounts owners: Accounts, cards: Cards) throws {
    guard owners.isEmpty else { return }
    let cities = try CityCatalog.standard().largest(600)
    var random = SeededGenerator(seed: 7_878)
    let failure = Mutex<(any Error)?>(nil)
    let done = DispatchGroup()
    for n in 0..<accounts {
      let jsons = (0..<cardsPerAccount).map { i in
        card(city: cities[(n * cardsPerAccount + i) % cities.count], &random)
      }
      done.enter()
      owners.create(passwordless: "demo\(n + 1)@cardatlas.invalid", isPro: true) { result in
        switch result {
        case .failure(let error):
          failure.withLock { $0 = error }
          done.leave()
        case .success(let account):
          let made = DispatchGroup()
          for json in jsons {
            made.enter()
            cards.create(owner: account.id, json: json) { result in
              if case .failure(let error) = result { failure.withLock { $0 = error } }
              made.leave()
            }
          }
          made.notify(queue: .global()) { done.leave() }
        }
      }
    }
    done.wait()
    if let error = failure.withLock({ $0 }) { throw error }
  }

  private static let firstNames = [
    "Ana", "Ben", "Chloé", "David", "Elif", "Fatima", "Giulia", "Hiro", "Ines", "Jonas", "Kemal",
    "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tariq", "Uma",
    "Viktor", "Wei", "Yara", "Zoë",
  ]
  private static let lastNames = [
    "Almeida", "Becker", "Chen", "Dubois", "Eriksson", "Fernández", "García", "Hansen", "Ivanova",
    "Jansen", "Kowalski", "Lima", "Müller", "Nakamura", "Okafor", "Petrov", "Rossi", "Singh",
    "Tanaka", "Yılmaz",
  ]
  private static let companies = [
    "Acme", "Globex", "Initech", "Umbrella", "Stark Industries", "Wayne Enterprises", "Hooli",
    "Vandelay Industries",
  ]
  private static let jobTitles = [
    "Engineer", "Designer", "Product Manager", "Architect", "Consultant", "Sales Director",
    "Photographer", "Lawyer", "Doctor", "Teacher",
  ]

  /// One card in `city`, within about 5 km of its centre.
  private static func card(city: City, _ random: inout SeededGenerator) -> String {
    func pick(_ list: [String]) -> String { list[Int(random.next() % UInt64(list.count))] }
    func jitter() -> Double { (Double(random.next() % 10_000) / 10_000 - 0.5) * 0.09 }
    let fields: [String: Any] = [
      "firstName": pick(firstNames), "lastName": pick(lastNames), "company": pick(companies),
      "jobTitle": pick(jobTitles), "showOnMap": true,
      "address": ["city": city.name, "country": city.country],
      "location": [
        "lon": max(-180, min(180, city.longitude + jitter())),
        "lat": max(-85, min(85, city.latitude + jitter())), "source": "manual",
      ],
    ]
    let data = try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
    return String(decoding: data, as: UTF8.self)
  }
}
