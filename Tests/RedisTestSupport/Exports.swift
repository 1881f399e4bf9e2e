// The tests' RESP connection is the project's own client (the importer's too).
@_exported import RESPClient
