#ifndef FEDRAN_COMPRESSION_INTERNAL_QUANTIZATION_KERNELS_H
#define FEDRAN_COMPRESSION_INTERNAL_QUANTIZATION_KERNELS_H

// The per-element loops of the "quantization" codec (see quantization-codec.cc for the
// arithmetic), in scalar, SSE2 and AVX2 versions that give identical bits; ActiveSimdLevel()
// picks one per call.

#include "compression/internal/dither.h"

#include <cstddef>
#include <cstdint>

namespace fedran::internal
{

struct BucketScan
{
    float maxAbs;
    bool finite; ///< no NaN or +-inf in the bucket
};

BucketScan ScanBucket(const float* x, size_t n);

/// One bucket's rounding: v = x * a clamped to +-limit, T = trunc(v) + offset, and the code
/// (T + r) >> 16. `tiny` buckets (scale below 2^-100, where `a` would overflow a float) use
/// v = x / scale * limit in double instead.
struct QuantizerRounding
{
    float a;
    float limit;
    int32_t offset;
    bool tiny;
    double scale;
};

/// Codes of n consecutive elements of one bucket. `dither` is null for round-to-nearest
/// (r = 32768); otherwise each element draws one value from it, in order.
void QuantizeRun(const float* x,
                 size_t n,
                 const QuantizerRounding& q,
                 Dither* dither,
                 uint8_t* codes);

/// out[i] = ((codes[i] - center) * (1 / center)) * scale, in float, in that order. `stream`
/// asks for non-temporal stores (see kStreamingStoreMinFloats); the caller then calls
/// StreamingStoreFence() when done.
void DequantizeRun(const uint8_t* codes,
                   size_t n,
                   float center,
                   float scale,
                   float* out,
                   bool stream);

} // namespace fedran::internal

#endif
