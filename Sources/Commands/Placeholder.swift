enum CommandsPlaceholder {}
