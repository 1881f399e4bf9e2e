import Foundation
import JWTKit

/// The claims Google's and Apple's ID tokens share. Checked here rather than in `verify(using:)`
/// so that each refusal can say which claim failed.
struct IdentityClaims: JWTPayload {
  enum CodingKeys: String, CodingKey {
    case issuer = "iss"
    case subject = "sub"
    case audience = "aud"
    case expires = "exp"
    case notBefore = "nbf"
    case issuedAt = "iat"
    case email
    case emailVerified = "email_verified"
  }

  let issuer: String
  let subject: String
  let audience: AudienceClaim
  let expires: ExpirationClaim
  let notBefore: NotBeforeClaim?
  let issuedAt: IssuedAtClaim?
  let email: String?
  /// Google sends a boolean, Apple the string "true": `BoolClaim` reads both.
  let emailVerified: BoolClaim?

  /// The signature is checked by then; the claims are, here.
  func verify(using _: some JWTAlgorithm) async throws {}

  func identity(
    for provider: IdentityProvider, now: Date, leeway: Double
  ) throws(IdentityTokenError) -> VerifiedIdentity {
    guard provider.issuers.contains(issuer) else {
      throw .refused(reason: "issuer \(issuer) is not \(provider.name)'s")
    }
    guard audience.value.contains(where: provider.audiences.contains) else {
      throw .refused(reason: "audience \(audience.value) is not ours")
    }
    guard expires.value.timeIntervalSince(now) > -leeway else {
      throw .refused(reason: "expired at \(expires.value)")
    }
    if let notBefore, notBefore.value.timeIntervalSince(now) > leeway {
      throw .refused(reason: "not valid before \(notBefore.value)")
    }
    if let issuedAt, issuedAt.value.timeIntervalSince(now) > leeway {
      throw .refused(reason: "issued in the future, at \(issuedAt.value)")
    }
    guard !subject.isEmpty else { throw .refused(reason: "no subject") }
    guard let email, !email.isEmpty else { throw .refused(reason: "no email") }
    guard emailVerified?.value == true else { throw .refused(reason: "email not verified") }
    return VerifiedIdentity(provider: provider.name, subject: subject, email: email)
  }
}
