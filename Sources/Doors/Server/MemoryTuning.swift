#if canImport(Glibc)
  import Glibc
#endif

/// The allocator's knobs, looked up at run time: the release build links jemalloc, the
/// sanitizer builds keep glibc's malloc, and each needs its own.
enum MemoryTuning {
  /// glibc's allocator raises its mmap threshold after large blocks are freed, so the big
  /// temporary arrays of loading and index rebuilds end up inside its arenas and stay resident
  /// once freed (measured: 68 MB free but resident after loading 1M points). A fixed threshold
  /// keeps every block of 128 KiB or more in its own mapping, returned to the system on free.
  /// Under jemalloc the executable's options do the same (AllocatorOptions: blocks of 128 KiB
  /// or more in an arena that returns them once freed).
  static func returnLargeBlocksToTheSystem() {
    #if canImport(Glibc)
      guard jemalloc == nil else { return }
      typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
      // M_MMAP_THRESHOLD from <malloc.h>, which Swift's Glibc module does not export.
      let mmapThreshold: Int32 = -3
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
      _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThreshold, 128 * 1024)
    #endif
  }

  /// Hands the free pages inside the allocator's arenas back to the system: loading frees
  /// millions of small records, whose holes otherwise stay resident (measured after loading 1M
  /// points: 200 MB resident before, 154 MB after).
  static func releaseFreePages() {
    #if canImport(Glibc)
      if let mallctl = jemalloc {
        // MALLCTL_ARENAS_ALL: every arena's unused dirty pages, now rather than after decay.
        _ = "arena.4096.purge".withCString { mallctl($0, nil, nil, nil, 0) }
        return
      }
      typealias MallocTrim = @convention(c) (Int) -> Int32
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else {
        return
      }
      _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    #endif
  }

  #if canImport(Glibc)
    typealias Mallctl =
      @convention(c) (
        UnsafePointer<CChar>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>?,
        UnsafeMutableRawPointer?, Int
      ) -> Int32

    /// jemalloc's control entry point, when jemalloc is the process's allocator.
    private static var jemalloc: Mallctl? {
      dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallctl").map {
        unsafeBitCast($0, to: Mallctl.self)
      }
    }
  #endif
}
