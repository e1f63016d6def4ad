#ifndef FEDRAN_COMPRESSION_PORTABLE_MATH_H
#define FEDRAN_COMPRESSION_PORTABLE_MATH_H

// Elementary functions that give the same bits on every x86-64 CPU and with every libm.
//
// Why not <cmath>: glibc picks one of several builds of exp, log, pow, sin and cos when the
// program starts, by the CPU's features (the build for FMA CPUs rounds some results
// differently from the SSE2 build), and other C libraries use other algorithms altogether. A
// value that reaches a trace (a loss, a lognormal site size, a learning-rate schedule, a
// normal draw) must not depend on that choice. These functions use only IEEE additions,
// multiplications and divisions, each rounded on its own (the file is compiled with
// -ffp-contract=off), in a fixed order, so every host computes the same bits.
//
// Accuracy: within 1-2 ulps of the correctly rounded result on their documented domains
// (tests/compression/portable-math-test.cc checks them against long double). Pow is
// Exp(y * Log(x)), whose relative error grows with |y * log x| (1e-15 at |y log x| = 10).
// sqrt is not here: std::sqrt is correctly rounded by IEEE 754 on every CPU.

namespace fedran::pmath
{

/// e^x; +inf above 709.78, 0 below -745.13, NaN for NaN.
double Exp(double x);

/// Natural logarithm; -inf at 0, NaN below 0 or for NaN, +inf at +inf.
double Log(double x);

/// log2(x) = Log(x) / ln 2 (exact for powers of two).
double Log2(double x);

/// log10(x) = Log(x) / ln 10.
double Log10(double x);

/// x^y for x > 0 (and the exact cases x == 0, y == 0, x == 1); NaN for x < 0 unless y is an
/// integer, as pow() does. Integer y with |y| <= 64 by repeated squaring (exact when the result
/// is representable).
double Pow(double x, double y);

/// Cosine and sine of x radians, for |x| < 1e6 (the reduction by pi/2 loses accuracy beyond).
double Cos(double x);
double Sin(double x);

/// P(Z <= x) for a standard normal Z, to about 1e-15 absolute (Marsaglia's series, 2004).
double NormalCdf(double x);

} // namespace fedran::pmath

#endif
