/// A digital business card.
public struct Card: Sendable {}
