import ArgumentParser
import Foundation

@main
struct CardAtlas: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "cardatlas",
    abstract: "CardAtlas: a geospatial backend for business cards, photo pins, people and venues.",
    subcommands: [Serve.self, Geocode.self, Import.self, Migrate.self])

  /// ArgumentParser's `main`, except that `import`'s usage errors exit 2, as its help says
  /// (its 1 is "a row failed"; the other commands keep ArgumentParser's 64).
  static func main() async {
    do {
      var command = try parseAsRoot()
      if var command = command as? any AsyncParsableCommand {
        try await command.run()
      } else {
        try command.run()
      }
    } catch {
      if exitCode(for: error) == .validationFailure,
        CommandLine.arguments.dropFirst().first == Import.configuration.commandName ?? "import"
      {
        FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
        exit(withError: ExitCode(2))
      }
      exit(withError: error)
    }
  }
}
