#include "compression/internal/simd-level.h"

#include <algorithm>
#include <atomic>

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

namespace fedran::internal
{

namespace
{

SimdLevel
DetectSimdLevel()
{
#if defined(__x86_64__) || defined(__i386__)
    // GCC's check includes the OS saving the AVX registers (XGETBV), not just CPUID. Every
    // CPU with AVX2 we know of has BMI2 too; kernels may rely on both.
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2"))
    {
        return SimdLevel::kAvx2;
    }
#endif
#if defined(__SSE2__)
    return SimdLevel::kSse2;
#else
    return SimdLevel::kScalar;
#endif
}

std::atomic<SimdLevel> g_cap{SimdLevel::kAvx2};

} // namespace

SimdLevel
ActiveSimdLevel()
{
    static const SimdLevel detected = DetectSimdLevel();
    return std::min(detected, g_cap.load(std::memory_order_relaxed));
}

void
StreamingStoreFence()
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

SimdLevel
SetSimdLevelCapForTesting(SimdLevel cap)
{
    return g_cap.exchange(cap);
}

} // namespace fedran::internal
