#ifndef FEDRAN_COMPRESSION_INTERNAL_DITHER_H
#define FEDRAN_COMPRESSION_INTERNAL_DITHER_H

// Uniform 16-bit dither values for stochastic rounding, fast enough for 5 GB/s quantizers.
//
// Stochastic rounding needs one uniform draw per element. Rng::NextU64 (xoshiro256**, out of
// line, serial) would cost more than the rest of the quantizer, so an encoder seeds four
// independent xorshift128+ generators (Vigna 2014) from its Rng once per tensor (so that a
// tensor draws the same values whether it is encoded alone or after others) and steps
// them together: a step yields 4 x 64 bits = 16 dither values, and with SSE2 it is 16
// instructions. xorshift128+ fails some BigCrush tests in its lowest bits; rounding only needs
// each 16-bit value to be uniform and nearby elements to be independent, which it provides,
// and everything stays a deterministic function of the Rng.
//
// Draw order, the same on every code path: element i of a tensor uses value i % 16 of block
// i / 16, and value j of a block is bits [16 (j % 4), 16 (j % 4) + 16) of lane j / 4's
// output. Each tensor starts a new block (see StartTensor).

#include "compression/rng.h"

#include <cstdint>

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif
#if defined(__x86_64__)
#    include <immintrin.h>
#endif

namespace fedran::internal
{

class Dither
{
  public:
    explicit Dither(Rng& rng)
    {
        for (int lane = 0; lane < 4; ++lane)
        {
            m_s0[lane] = rng.NextU64();
            m_s1[lane] = rng.NextU64();
            if ((m_s0[lane] | m_s1[lane]) == 0) // the one state xorshift never leaves
            {
                m_s1[lane] = 1;
            }
        }
    }

    /// Discards what is left of the current block.
    void StartTensor()
    {
        m_next = 16;
    }

    /// True at a block boundary, where the SIMD kernels take whole blocks with Step4.
    bool AtBlockStart() const
    {
        return m_next == 16;
    }

    /// The next value in draw order, in [0, 65536).
    uint32_t NextValue()
    {
        if (m_next == 16)
        {
            uint64_t words[4];
            Step(words);
            for (int j = 0; j < 16; ++j)
            {
                m_block[j] = static_cast<uint16_t>(words[j / 4] >> (16 * (j % 4)));
            }
            m_next = 0;
        }
        return m_block[m_next++];
    }

    /// One step of the four lanes; lane j's output in words[j].
    void Step(uint64_t words[4])
    {
        for (int lane = 0; lane < 4; ++lane)
        {
            uint64_t x = m_s0[lane];
            const uint64_t y = m_s1[lane];
            m_s0[lane] = y;
            x ^= x << 23;
            m_s1[lane] = x ^ y ^ (x >> 17) ^ (y >> 26);
            words[lane] = m_s1[lane] + y;
        }
    }

#if defined(__SSE2__)
    /// The lanes in registers, for a kernel that draws many blocks (call at a block start).
    struct Lanes
    {
        __m128i s0a, s0b, s1a, s1b; ///< lanes 0-1 and 2-3

        /// One step: the output of lanes 0-1 in `a`, lanes 2-3 in `b`.
        void Step(__m128i& a, __m128i& b)
        {
            a = StepPair(s0a, s1a);
            b = StepPair(s0b, s1b);
        }

        static __m128i StepPair(__m128i& s0, __m128i& s1)
        {
            __m128i x = s0;
            const __m128i y = s1;
            s0 = y;
            x = _mm_xor_si128(x, _mm_slli_epi64(x, 23));
            s1 = _mm_xor_si128(_mm_xor_si128(x, y),
                               _mm_xor_si128(_mm_srli_epi64(x, 17), _mm_srli_epi64(y, 26)));
            return _mm_add_epi64(s1, y);
        }
    };

    /// The lane states, for kernels that step all four lanes in one AVX2 register.
    uint64_t* State0()
    {
        return m_s0;
    }

    uint64_t* State1()
    {
        return m_s1;
    }

    Lanes Load() const
    {
        const auto* s0 = reinterpret_cast<const __m128i*>(m_s0);
        const auto* s1 = reinterpret_cast<const __m128i*>(m_s1);
        return {_mm_load_si128(s0),
                _mm_load_si128(s0 + 1),
                _mm_load_si128(s1),
                _mm_load_si128(s1 + 1)};
    }

    void Store(const Lanes& lanes)
    {
        auto* s0 = reinterpret_cast<__m128i*>(m_s0);
        auto* s1 = reinterpret_cast<__m128i*>(m_s1);
        _mm_store_si128(s0, lanes.s0a);
        _mm_store_si128(s0 + 1, lanes.s0b);
        _mm_store_si128(s1, lanes.s1a);
        _mm_store_si128(s1 + 1, lanes.s1b);
    }
#endif

  private:
    alignas(32) uint64_t m_s0[4];
    alignas(32) uint64_t m_s1[4];
    uint16_t m_block[16] = {};
    int m_next = 16;
};

#if defined(__x86_64__)
/// One step of the four lanes held in AVX2 registers (s0, s1 as in Dither::State0/State1).
__attribute__((target("avx2"))) inline __m256i
DitherStepAvx2(__m256i& s0, __m256i& s1)
{
    __m256i x = s0;
    const __m256i y = s1;
    s0 = y;
    x = _mm256_xor_si256(x, _mm256_slli_epi64(x, 23));
    s1 = _mm256_xor_si256(_mm256_xor_si256(x, y),
                          _mm256_xor_si256(_mm256_srli_epi64(x, 17), _mm256_srli_epi64(y, 26)));
    return _mm256_add_epi64(s1, y);
}

/// A step's 16 values as u32 in draw order: values 0-7 in `low`, 8-15 in `high`.
__attribute__((target("avx2"))) inline void
SplitDitherAvx2(__m256i words, __m256i& low, __m256i& high)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i a = _mm256_unpacklo_epi16(words, zero); // values 0-3 | 8-11
    const __m256i b = _mm256_unpackhi_epi16(words, zero); // values 4-7 | 12-15
    low = _mm256_permute2x128_si256(a, b, 0x20);
    high = _mm256_permute2x128_si256(a, b, 0x31);
}
#endif

} // namespace fedran::internal

#endif
