/// Every command the server answers, by module of behaviour.
enum CommandTable {
  static let all: [CommandSpec] =
    GeoCommands.all + SortedSetCommands.all + SortedSetCommands.ranks + KeyCommands.all
    + ConnectionCommands.all + PubSubCommands.all
    + ServerCommands.all
}
