#ifndef GEODESY_INTRINSICS_H
#define GEODESY_INTRINSICS_H

/// The sine and cosine of `x` in one libm call (glibc's sincos, which Swift's Glibc module
/// does not import): the same values as sin and cos, for about the price of one of them.
static inline void geodesy_sincos(double x, double *sine, double *cosine) {
  __builtin_sincos(x, sine, cosine);
}

#endif
