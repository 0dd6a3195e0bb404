// floor, ceil, round and sqrt: all the glibc daemon took from libm, which mapping cost it
// 384 KiB of resident memory (docs/PERFORMANCE.md). Swift's rounded() calls them on x86-64,
// whose baseline (SSE2) has no rounding instruction, and its squareRoot() calls sqrt on
// every architecture, for errno, when the instruction gives NaN. Exact, as libm's: ±0 keeps
// its sign, NaN and ±infinity pass through, and from 2^52 on every double is an integer.
// Package.swift defines USEDSPACE_OWN_ROUNDING in the lean glibc build, which links no libm.
#include "include/CLinuxRounding.h"

#if defined(__aarch64__)

// Its own exact instructions (frintm, frintp, frinta), at every optimisation level.
double clinux_floor(double x) { return __builtin_floor(x); }
double clinux_ceil(double x) { return __builtin_ceil(x); }
double clinux_round(double x) { return __builtin_round(x); }

#else

static const double integral = 0x1p52;

static double toward_zero(double x) {
    return (double)(long long)x;
}

double clinux_floor(double x) {
    if (!(x > -integral && x < integral)) return x;
    double result = toward_zero(x);
    if (result > x) result -= 1.0;
    return __builtin_copysign(result, x);
}

double clinux_ceil(double x) {
    if (!(x > -integral && x < integral)) return x;
    double result = toward_zero(x);
    if (result < x) result += 1.0;
    return __builtin_copysign(result, x);
}

// Halves away from zero. x - toward_zero(x) is exact below 2^52.
double clinux_round(double x) {
    if (!(x > -integral && x < integral)) return x;
    double result = toward_zero(x);
    double fraction = x - result;
    if (fraction >= 0.5) result += 1.0;
    else if (fraction <= -0.5) result -= 1.0;
    return __builtin_copysign(result, x);
}

#endif

// The instruction itself: C's sqrt, even the builtin, calls libm for a negative x, to set
// errno. Where there is no instruction written here, it is libm's (and libm stays linked).
#if defined(__x86_64__)
#define OWN_SQRT
double clinux_sqrt(double x) {
    double result;
    __asm__("sqrtsd %1, %0" : "=x"(result) : "x"(x));
    return result;
}
#elif defined(__aarch64__)
#define OWN_SQRT
double clinux_sqrt(double x) {
    double result;
    __asm__("fsqrt %d0, %d1" : "=w"(result) : "w"(x));
    return result;
}
#else
double clinux_sqrt(double x) { return __builtin_sqrt(x); }
#endif

#if defined(USEDSPACE_OWN_ROUNDING) && defined(OWN_SQRT)
double floor(double x) { return clinux_floor(x); }
double ceil(double x) { return clinux_ceil(x); }
double round(double x) { return clinux_round(x); }
double sqrt(double x) { return clinux_sqrt(x); }
#endif
