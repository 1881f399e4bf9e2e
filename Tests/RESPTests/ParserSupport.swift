import NIOCore

@testable import RESP

/// Feeds `input` in chunks of the given sizes (cycled) and collects every command as strings.
func parseAll(
  _ input: [UInt8], chunks: [Int] = [Int.max], limits: RESPLimits = RESPLimits()
) throws -> [[[UInt8]]] {
  var parser = RESPRequestParser(limits: limits)
  var commands: [[[UInt8]]] = []
  var start = 0
  var chunk = 0
  while start < input.count {
    let end = min(input.count, start + min(chunks[chunk % chunks.count], input.count))
    parser.append(ByteBuffer(bytes: input[start..<end]))
    start = end
    chunk += 1
    while let command = try parser.next() {
      commands.append(command.map { Array($0.readableBytesView) })
    }
  }
  return commands
}

func words(_ strings: String...) -> [[UInt8]] { strings.map { Array($0.utf8) } }

func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }

/// The protocol error text that parsing `input` in one piece throws, or nil if none.
func protocolError(_ input: [UInt8], limits: RESPLimits = RESPLimits()) -> String? {
  do {
    _ = try parseAll(input, limits: limits)
    return nil
  } catch let error as RESPProtocolError {
    return error.message
  } catch {
    return "unexpected \(error)"
  }
}
