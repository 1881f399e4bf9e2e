#ifndef CPUHINTS_H
#define CPUHINTS_H

/// Hints the CPU to load the cache line at `address` before the index reads it.
static inline void cprefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

/// Tells the CPU this thread is spinning on a lock, so it yields resources to its sibling.
static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

#endif
