// libm's floor, ceil, round and sqrt, without libm (Rounding.c says why).
#pragma once

double clinux_floor(double x);
double clinux_ceil(double x);
double clinux_round(double x);
double clinux_sqrt(double x);
