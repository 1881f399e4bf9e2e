#ifndef INDEX_INTRINSICS_H
#define INDEX_INTRINSICS_H

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/// The calling thread's `ThreadSlot` plus one, 0 until it is given one: a C thread-local is
/// one load from the thread pointer, where `pthread_getspecific` is a call and Swift has no
/// thread-locals of its own.
extern __thread long cardatlas_thread_slot;

static inline long thread_slot_get(void) { return cardatlas_thread_slot; }
static inline void thread_slot_set(long slot) { cardatlas_thread_slot = slot; }

/// Tell ThreadSanitizer that a lock at `address` was taken or is being let go: in a build with
/// `-sanitize=thread` these are its `__tsan_acquire` and `__tsan_release`, otherwise they do
/// nothing. TSan cannot see the ordering `Synchronization.Mutex` gives (the standard library is
/// not instrumented), so without them it reports every pair of writers as a race. Not inline:
/// only the C file is compiled knowing whether TSan is on (Swift's importer is not told).
void cardatlas_tsan_acquire(void *address);
void cardatlas_tsan_release(void *address);

#if defined(__x86_64__)
/// Whether this CPU runs AVX-512F, tested once at load: the build targets baseline x86-64, so
/// the 16-lane version is compiled for AVX-512 alone and chosen at run time.
extern int cardatlas_has_avx512;

static inline int has_avx512(void) { return cardatlas_has_avx512; }

/// `box16_bounds_portable` in one 16-lane pass: the same operations in the same order, so the
/// same bounds to the bit.
unsigned box16_bounds_avx512(
  const float *boxes, float x, float y, float z, float slack, float shrink, float limit,
  float *out);
#endif

/// Lower bounds on the squared chord from the point (x, y, z) to 16 boxes, written to `out`;
/// returns bit j set when bound j is below `limit`. The boxes are 6 rows of 16 floats: min x,
/// min y, min z, max x, max y, max z. Inverted (empty) boxes get infinity.
///
/// Computed in float, and made conservative: `slack` is taken off each axis distance (float's
/// rounding of the point and of the differences), and the sum is multiplied by `shrink` (the
/// rounding of the squares and adds), so no bound exceeds the exact one. In C because Swift's
/// SIMD comparisons and max compile to loops over the lanes.
static inline unsigned box16_bounds_portable(
  const float *boxes, float x, float y, float z, float slack, float shrink, float limit,
  float *out) {
#if defined(__SSE2__)
  const __m128 vx = _mm_set1_ps(x), vy = _mm_set1_ps(y), vz = _mm_set1_ps(z);
  const __m128 vs = _mm_set1_ps(slack), vk = _mm_set1_ps(shrink), vl = _mm_set1_ps(limit);
  const __m128 zero = _mm_setzero_ps();
  unsigned mask = 0;
  for (int j = 0; j < 16; j += 4) {
    __m128 dx = _mm_max_ps(_mm_sub_ps(_mm_loadu_ps(boxes + j), vx),
                           _mm_sub_ps(vx, _mm_loadu_ps(boxes + 48 + j)));
    __m128 dy = _mm_max_ps(_mm_sub_ps(_mm_loadu_ps(boxes + 16 + j), vy),
                           _mm_sub_ps(vy, _mm_loadu_ps(boxes + 64 + j)));
    __m128 dz = _mm_max_ps(_mm_sub_ps(_mm_loadu_ps(boxes + 32 + j), vz),
                           _mm_sub_ps(vz, _mm_loadu_ps(boxes + 80 + j)));
    dx = _mm_max_ps(_mm_sub_ps(dx, vs), zero);
    dy = _mm_max_ps(_mm_sub_ps(dy, vs), zero);
    dz = _mm_max_ps(_mm_sub_ps(dz, vs), zero);
    __m128 d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy)), _mm_mul_ps(dz, dz));
    d = _mm_mul_ps(d, vk);
    _mm_storeu_ps(out + j, d);
    mask |= (unsigned)_mm_movemask_ps(_mm_cmplt_ps(d, vl)) << j;
  }
  return mask;
#else
  unsigned mask = 0;
  for (int j = 0; j < 16; j++) {
    float ax = boxes[j] - x, bx = x - boxes[48 + j];
    float ay = boxes[16 + j] - y, by = y - boxes[64 + j];
    float az = boxes[32 + j] - z, bz = z - boxes[80 + j];
    float dx = (ax > bx ? ax : bx) - slack, dy = (ay > by ? ay : by) - slack;
    float dz = (az > bz ? az : bz) - slack;
    dx = dx > 0 ? dx : 0;
    dy = dy > 0 ? dy : 0;
    dz = dz > 0 ? dz : 0;
    out[j] = (dx * dx + dy * dy + dz * dz) * shrink;
    if (out[j] < limit) mask |= 1u << j;
  }
  return mask;
#endif
}

/// `box16_bounds_portable`, or on a CPU with AVX-512 the same in one pass.
static inline unsigned box16_bounds(
  const float *boxes, float x, float y, float z, float slack, float shrink, float limit,
  float *out) {
#if defined(__x86_64__)
  if (cardatlas_has_avx512)
    return box16_bounds_avx512(boxes, x, y, z, slack, shrink, limit, out);
#endif
  return box16_bounds_portable(boxes, x, y, z, slack, shrink, limit, out);
}

#endif
