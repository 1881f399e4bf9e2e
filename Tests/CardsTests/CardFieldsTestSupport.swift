import Cards
import Foundation

/// The error `parse` refuses `json` with, or nil if it accepts it.
func refusal(_ json: String, isPro: Bool = false) -> CardFieldError? {
  do {
    _ = try CardFields.parse(json, isPro: isPro)
    return nil
  } catch {
    return error
  }
}

/// The error `merging` refuses `patch` with, or nil if it accepts it.
func refusal(merging patch: String, into fields: CardFields, isPro: Bool = false)
  -> CardFieldError?
{
  do {
    _ = try fields.merging(patch, isPro: isPro)
    return nil
  } catch {
    return error
  }
}

/// A card's JSON: firstName "Ann" and `members` (JSON text, `"name": value, ...`).
func card(_ members: String = "") -> String {
  members.isEmpty ? #"{"firstName":"Ann"}"# : #"{"firstName":"Ann","# + members + "}"
}

/// `text` as a JSON string literal.
func quoted(_ text: String) -> String {
  let data = try! JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])
  return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
}

/// A card with one string member, `name: value`.
func card(_ name: String, _ value: String) -> String {
  card("\(quoted(name)):\(quoted(value))")
}

/// JSON text of any JSON value, keys sorted, for comparing values.
func canonical(_ value: Any) -> String {
  let data = try! JSONSerialization.data(
    withJSONObject: [value], options: [.sortedKeys, .withoutEscapingSlashes])
  return String(decoding: data, as: UTF8.self)
}

func invalid(_ field: String, _ reason: String) -> CardFieldError {
  CardFieldError(field: field, reason: reason)
}
