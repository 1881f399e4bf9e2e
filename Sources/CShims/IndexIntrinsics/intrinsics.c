#include "IndexIntrinsics.h"

__thread long cardatlas_thread_slot = 0;

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CARDATLAS_TSAN 1
#endif
#endif

#if defined(CARDATLAS_TSAN)
void __tsan_acquire(void *address);
void __tsan_release(void *address);

void cardatlas_tsan_acquire(void *address) { __tsan_acquire(address); }
void cardatlas_tsan_release(void *address) { __tsan_release(address); }
#else
void cardatlas_tsan_acquire(void *address) { (void)address; }
void cardatlas_tsan_release(void *address) { (void)address; }
#endif

#if defined(__x86_64__)
#include <immintrin.h>

int cardatlas_has_avx512 = 0;

__attribute__((constructor)) static void detect_avx512(void) {
  __builtin_cpu_init();
  cardatlas_has_avx512 = __builtin_cpu_supports("avx512f");
}

__attribute__((target("avx512f"))) unsigned box16_bounds_avx512(
  const float *boxes, float x, float y, float z, float slack, float shrink, float limit,
  float *out) {
  const __m512 vx = _mm512_set1_ps(x), vy = _mm512_set1_ps(y), vz = _mm512_set1_ps(z);
  const __m512 vs = _mm512_set1_ps(slack), zero = _mm512_setzero_ps();
  __m512 dx = _mm512_max_ps(_mm512_sub_ps(_mm512_loadu_ps(boxes), vx),
                            _mm512_sub_ps(vx, _mm512_loadu_ps(boxes + 48)));
  __m512 dy = _mm512_max_ps(_mm512_sub_ps(_mm512_loadu_ps(boxes + 16), vy),
                            _mm512_sub_ps(vy, _mm512_loadu_ps(boxes + 64)));
  __m512 dz = _mm512_max_ps(_mm512_sub_ps(_mm512_loadu_ps(boxes + 32), vz),
                            _mm512_sub_ps(vz, _mm512_loadu_ps(boxes + 80)));
  dx = _mm512_max_ps(_mm512_sub_ps(dx, vs), zero);
  dy = _mm512_max_ps(_mm512_sub_ps(dy, vs), zero);
  dz = _mm512_max_ps(_mm512_sub_ps(dz, vs), zero);
  __m512 d = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)),
                           _mm512_mul_ps(dz, dz));
  d = _mm512_mul_ps(d, _mm512_set1_ps(shrink));
  _mm512_storeu_ps(out, d);
  return (unsigned)_mm512_cmp_ps_mask(d, _mm512_set1_ps(limit), _CMP_LT_OQ);
}
#endif
