/// What an email and a password must be.
public enum Validation {
  public static let minimumPasswordLength = 6
  /// Bounds the work a password costs to hash.
  public static let maximumPasswordLength = 1_024
  public static let maximumEmailLength = 254

  /// Why `email` is not acceptable, if it is not.
  public static func problem(email: String) -> AccountError? {
    let invalid = AccountError.invalid(field: "email", reason: "not an email address")
    guard email.utf8.count <= maximumEmailLength else {
      return .invalid(field: "email", reason: "longer than \(maximumEmailLength) bytes")
    }
    let parts = email.split(separator: "@", omittingEmptySubsequences: false)
    // The domain has two labels or more, none empty (no leading, trailing or double dot).
    guard parts.count == 2, let local = parts.first, let domain = parts.last,
      !local.isEmpty, local.utf8.count <= 64
    else { return invalid }
    let labels = domain.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    guard labels.count >= 2, !labels.contains(where: \.isEmpty) else { return invalid }
    for scalar in email.unicodeScalars {
      // No spaces, controls, or characters that would end a header or a quoted string.
      switch scalar {
      case "\"", "(", ")", ",", ":", ";", "<", ">", "[", "\\", "]": return invalid
      default: break
      }
      if scalar.value <= 32 || scalar.value == 127 {
        return invalid
      }
    }
    return nil
  }

  /// Why `password` is not acceptable as a new password, if it is not.
  static func problem(password: String) -> AccountError? {
    guard password.count >= minimumPasswordLength else {
      return .invalid(field: "password", reason: "at least \(minimumPasswordLength) characters")
    }
    guard password.utf8.count <= maximumPasswordLength else {
      return .invalid(field: "password", reason: "at most \(maximumPasswordLength) bytes")
    }
    return nil
  }
}
