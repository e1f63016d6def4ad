#ifndef FEDRAN_COMPRESSION_INTERNAL_SIMD_LEVEL_H
#define FEDRAN_COMPRESSION_INTERNAL_SIMD_LEVEL_H

// Which vector instructions the quantizing kernels may use, chosen at run time.
//
// The library is built for baseline x86-64 (SSE2), so AVX2 kernels are compiled with
// __attribute__((target("avx2"))) and only called when the CPU has AVX2. FMA is deliberately
// never enabled there: every path must produce the same bits, and GCC would otherwise fuse
// a multiply and an add into one differently-rounded instruction.

#include <cstddef>

namespace fedran::internal
{

enum class SimdLevel
{
    kScalar = 0,
    kSse2 = 1,
    kAvx2 = 2, ///< AVX2 and BMI2 (shlx/shrx, which bit-stream loops rely on)
};

/// The best level the CPU supports, lowered by SetSimdLevelCapForTesting if a test asked.
SimdLevel ActiveSimdLevel();

/// Decoders write outputs of at least this many floats (16 MiB, far beyond a core's L2) with
/// non-temporal stores: such writes are bound by memory bandwidth, and skipping the read of
/// every destination line before it is overwritten roughly halves the traffic. Smaller
/// outputs use ordinary stores and stay in cache for the aggregator that reads them next.
constexpr size_t kStreamingStoreMinFloats = size_t{1} << 22;

/// Orders earlier non-temporal stores before later stores (call once a decode is done).
void StreamingStoreFence();

/// Caps ActiveSimdLevel(), so that tests can run every code path on one machine and check
/// that they agree bit for bit. Returns the previous cap. Not for production use.
SimdLevel SetSimdLevelCapForTesting(SimdLevel cap);

} // namespace fedran::internal

#endif
