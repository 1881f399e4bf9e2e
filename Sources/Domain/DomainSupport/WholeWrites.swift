#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes all of `bytes` to `fd` (a short write goes on, an interrupted one is retried), then
/// fsyncs it: 0 once both are done, else the errno that stopped them.
public func writeWholeAndSync(_ bytes: UnsafeRawBufferPointer, to fd: Int32) -> Int32 {
  var written = 0
  while written < bytes.count {
    let n = write(fd, bytes.baseAddress! + written, bytes.count - written)
    if n < 0 {
      if errno == EINTR { continue }
      return errno
    }
    written += n
  }
  return fsync(fd) == 0 ? 0 : errno
}
