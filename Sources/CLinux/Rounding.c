// floor, ceil, round and sqrt: all the glibc daemon took from libm, which mapping cost it
// 384 KiB of resident memory (docs/PERFORMANCE.md). Swift's rounded() calls them because
// x86-64's baseline (SSE2) has no rounding instruction. Exact, as libm's: ±0 keeps its sign,
// NaN and ±infinity pass through, and from 2^52 on every double is already an integer.
// Package.swift defines USEDSPACE_OWN_ROUNDING in the lean glibc build, which links no libm.
#include "include/CLinuxRounding.h"

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

// The instruction itself: a C sqrt would set errno, and call libm to do it.
double clinux_sqrt(double x) {
    double result;
    __asm__("sqrtsd %1, %0" : "=x"(result) : "x"(x));
    return result;
}

#ifdef USEDSPACE_OWN_ROUNDING
double floor(double x) { return clinux_floor(x); }
double ceil(double x) { return clinux_ceil(x); }
double round(double x) { return clinux_round(x); }
double sqrt(double x) { return clinux_sqrt(x); }
#endif
