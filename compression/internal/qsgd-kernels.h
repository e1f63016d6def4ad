#ifndef FEDRAN_COMPRESSION_INTERNAL_QSGD_KERNELS_H
#define FEDRAN_COMPRESSION_INTERNAL_QSGD_KERNELS_H

// The per-element loops of the "qsgd" codec (see qsgd-codec.cc for the arithmetic), in
// scalar, SSE2 and AVX2 versions that give identical bits; ActiveSimdLevel() picks one.

#include "compression/internal/bit-stream.h"
#include "compression/internal/dither.h"

#include <cstddef>
#include <cstdint>

namespace fedran::internal
{

/// ||x||^2 in double. Float partial sums in a fixed 32-lane order (the same on every path)
/// per block of 1024, redone in double when a block may have overflowed or lost bits to
/// underflow. NaN or inf in x gives a non-finite result.
double SumOfSquares(const float* x, size_t n);

/// One bucket's rounding: u = |x| * k clamped to cap = s 2^F, then
/// l = (trunc(u) + (r >> (16 - F))) >> F. `tiny` buckets (norm below 2^-90, where k would
/// overflow a float) use u = |x| / norm * cap in double instead.
struct QsgdRounding
{
    float k;
    float cap;
    unsigned fraction;
    bool tiny;
    double norm;
};

/// idx[i] = l_i << 1 | sign bit of x_i for n elements of one finite bucket; each element
/// draws one dither value, in order.
void QsgdLevelRun(const float* x, size_t n, const QsgdRounding& q, Dither& dither, uint32_t* idx);

/// Rounds and codes (qsgd-coding.h) whole blocks of 32 elements of one finite bucket in one
/// pass when it can (AVX2, s <= kQsgdMaxAvx2WriteLevels, not tiny, at a dither block start),
/// and returns how many elements it did, possibly 0. Writes the same bits as QsgdLevelRun
/// followed by QsgdCodeWriter::Write.
size_t QsgdCodeBlocks(const float* x,
                      size_t n,
                      const QsgdRounding& q,
                      uint32_t levels,
                      Dither& dither,
                      BitWriter& writer);

} // namespace fedran::internal

#endif
