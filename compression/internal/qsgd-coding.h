#ifndef FEDRAN_COMPRESSION_INTERNAL_QSGD_CODING_H
#define FEDRAN_COMPRESSION_INTERNAL_QSGD_CODING_H

// The element codes of the "qsgd" codec and the loops that write and read them.
//
// Level l of s levels, with its sign, is Elias gamma(l + 1) (bit-stream.h order) followed by
// a sign bit (1 = negative) when l > 0. The rounding kernel hands the writer
// idx = l << 1 | negative; the reader returns l or -l.
//
// Why the loops look the way they do: a code is 1 to 42 bits, so a plain loop spends a dozen
// instructions per element, and a decoder waits on a load-shift-load chain for every code
// (where a code starts depends on the length of the one before). Writers merge codes in
// vector registers (QsgdCodeBlocks in qsgd-kernels.h, 32 at a time, rounds and codes in one
// pass; PutQsgdCodes8Avx2 here, 8 at a time) or look them up four at a time without AVX2.
// Each bucket of codes has its own bit range (the codec stores every bucket's bit length), so
// the reader decodes four buckets at once, interleaved, which hides the chain; each step looks
// up to six codes in a 4096-entry table.

#include "compression/internal/bit-stream.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#if defined(__x86_64__)
#    include <immintrin.h>
#endif

namespace fedran::internal
{

/// Bits of the code of level l (with its sign bit).
inline unsigned
QsgdCodeLength(uint32_t level)
{
    return EliasGammaLength(uint64_t{level} + 1) + (level > 0 ? 1 : 0);
}

/// Layout of the reader's multi-code table: an entry, looked up by the next kQsgdMultiBits
/// stream bits, holds up to kQsgdMultiCodes levels as int8, then the count of codes (byte 6;
/// 0 = no complete code) and the bits they use (byte 7).
constexpr unsigned kQsgdMultiBits = 12; ///< a 32 KiB table
constexpr uint32_t kQsgdMultiMask = (1u << kQsgdMultiBits) - 1;
constexpr unsigned kQsgdMultiCodes = 6;
constexpr uint64_t kQsgdMultiCountMask = uint64_t{0xFF} << 48;

/// Levels up to this many are written by the AVX2 code builder (four codes fit 56 bits).
constexpr uint32_t kQsgdMaxAvx2WriteLevels = 126;

#if defined(__x86_64__)
/// Appends the codes of eight elements (level and sign bit per 32-bit lane, levels at most
/// kQsgdMaxAvx2WriteLevels) through `c`, which needs room for 8 * 14 bits.
///
/// With v = l + 1 and N = floor(log2 v) (read off the exponent of float(v)), gamma(v) with the
/// sign bit s is ((2v + 1) ^ (!s << (N + 1))) << N over 2N + 1 + [l > 0] bits: 2v + 1 is the
/// payload bits behind a one, and the leading one of v lands exactly where the sign goes.
/// Neighbouring codes are then merged pairwise with variable shifts into two 4-code words.
__attribute__((target("avx2"))) inline void
PutQsgdCodes8Avx2(BitCursor& c, __m256i level, __m256i negative)
{
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i v = _mm256_add_epi32(level, one);
    const __m256i biased = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(v)), 23);
    const __m256i n1 = _mm256_sub_epi32(biased, _mm256_set1_epi32(126)); // N + 1
    const __m256i nonZero = _mm256_cmpgt_epi32(level, _mm256_setzero_si256());
    // 1 unless the sign bit is to be set (negative and l > 0).
    const __m256i clear = _mm256_andnot_si256(_mm256_and_si256(negative, nonZero), one);
    const __m256i twoV1 = _mm256_or_si256(_mm256_add_epi32(v, v), one);
    const __m256i code = _mm256_sllv_epi32(_mm256_xor_si256(twoV1, _mm256_sllv_epi32(clear, n1)),
                                           _mm256_sub_epi32(n1, one));
    // 2 (N + 1) - 1 - (l > 0 ? -1 : 0)
    const __m256i length =
        _mm256_sub_epi32(_mm256_sub_epi32(_mm256_add_epi32(n1, n1), one), nonZero);
    // Pairs in 64-bit lanes: low code | high code << low length.
    const __m256i low32 = _mm256_set1_epi64x(0xFFFFFFFF);
    const __m256i lowLength = _mm256_and_si256(length, low32);
    const __m256i pair = _mm256_or_si256(_mm256_and_si256(code, low32),
                                         _mm256_sllv_epi64(_mm256_srli_epi64(code, 32), lowLength));
    const __m256i pairLength = _mm256_add_epi64(lowLength, _mm256_srli_epi64(length, 32));
    // Quads in 64-bit lanes 0 and 2.
    const __m256i quad =
        _mm256_or_si256(pair, _mm256_sllv_epi64(_mm256_srli_si256(pair, 8), pairLength));
    const __m256i quadLength = _mm256_add_epi64(pairLength, _mm256_srli_si256(pairLength, 8));
    // Lanes: quad 0, its length, quad 1, its length.
    const __m256i both = _mm256_blend_epi32(quad, _mm256_slli_si256(quadLength, 8), 0xCC);
    const __m128i first = _mm256_castsi256_si128(both);
    const __m128i second = _mm256_extracti128_si256(both, 1);
    PutBits(c,
            static_cast<uint64_t>(_mm_cvtsi128_si64(first)),
            static_cast<unsigned>(_mm_extract_epi64(first, 1)));
    PutBits(c,
            static_cast<uint64_t>(_mm_cvtsi128_si64(second)),
            static_cast<unsigned>(_mm_extract_epi64(second, 1)));
}
#endif

/// The coders of the last few s used in this process. Bounded, because a decoder meets
/// whatever s a payload claims.
template<typename Coder>
std::shared_ptr<const Coder>
SharedQsgdCoder(uint32_t levels)
{
    static std::mutex mutex;
    static std::map<uint32_t, std::shared_ptr<const Coder>> cache;
    constexpr size_t kCapacity = 8;
    const std::lock_guard<std::mutex> lock(mutex);
    auto& coder = cache[levels];
    if (!coder)
    {
        if (cache.size() > kCapacity)
        {
            // Drop another entry (the holders keep theirs alive).
            cache.erase(cache.begin()->first != levels ? cache.begin() : std::next(cache.begin()));
        }
        coder = std::make_shared<const Coder>(levels);
    }
    return coder;
}

class QsgdCodeWriter
{
  public:
    explicit QsgdCodeWriter(uint32_t levels);

    /// A shared writer for s levels: its tables take a while to build, and codecs (one per
    /// client, or per fuzzed payload) are created far more often than s changes.
    static std::shared_ptr<const QsgdCodeWriter> For(uint32_t levels);

    /// Appends the codes of idx[0 .. n), n <= kMaxCodes.
    void Write(BitWriter& writer, const uint32_t* idx, size_t n) const;

    static constexpr size_t kMaxCodes = 1024;

  private:
    /// Take and return the cursor by value so that it stays in registers.
    BitCursor WriteQuads(BitCursor c, const uint32_t* idx, size_t n) const;
    BitCursor WriteAvx2(BitCursor c, const uint32_t* idx, size_t n) const;

    uint32_t m_levels;
    unsigned m_maxLength;
    std::vector<uint32_t> m_single; ///< code | length << 24 by idx, when s <= 2047
    /// The same for four codes of levels <= 3, by idx0 | idx1 << 3 | idx2 << 6 | idx3 << 9,
    /// when s <= 31 (where such quads are the rule).
    std::vector<uint32_t> m_quad;
};

/// One tensor's codes as the decoder finds them: bucket j holds the codes of elements
/// [j * size, min((j + 1) * size, d)) in stream bits [starts[j], starts[j + 1]).
struct QsgdBuckets
{
    std::span<const uint64_t> starts; ///< one more than there are buckets
    std::span<const uint8_t> norms;   ///< f32 per bucket, already validated
    uint32_t size;
    std::span<float> out; ///< d floats
    /// Payload offset of bucket j's length field is lengthsAt + j * lengthBytes (errors name it).
    size_t lengthsAt;
    unsigned lengthBytes;
};

class QsgdCodeReader
{
  public:
    explicit QsgdCodeReader(uint32_t levels);

    /// A shared reader for s levels, as QsgdCodeWriter::For.
    static std::shared_ptr<const QsgdCodeReader> For(uint32_t levels);

    uint32_t Levels() const
    {
        return m_levels;
    }

    /// Writes level * norm / s for every element of `buckets`. Throws DecodeError for a level
    /// above s, a code longer than any valid one, the end of the stream, or a bucket whose
    /// codes do not fill exactly its bit range; whichever path runs, the error is the first
    /// one in stream order.
    void ReadBuckets(BitReader& bits, const QsgdBuckets& buckets) const;

  private:
    /// Decodes bucket j on its own.
    void ReadBucket(BitReader& bits, const QsgdBuckets& buckets, size_t j) const;
    /// Decodes the buckets four at a time; false if it cannot run here (no AVX2, s too large).
    bool ReadInterleaved(BitReader& bits, const QsgdBuckets& buckets) const;
#if defined(__x86_64__)
    __attribute__((target("avx2,bmi2"))) void ReadInterleavedAvx2(BitReader& bits,
                                                                  const QsgdBuckets& buckets) const;
#endif
    int32_t ReadOne(BitReader& bits, uint64_t& pos) const;
    int32_t ReadLong(BitReader& bits, uint64_t& pos) const;
    /// ReadLong for the interleaved loop: writes the value, returns the new position (by
    /// value, so that the loop's positions stay in registers).
    uint64_t StoreLong(BitReader& bits, uint64_t pos, float* out, float scale) const;
    [[noreturn]] void FailLength(const QsgdBuckets& buckets, size_t j, uint64_t used) const;

    uint32_t m_levels;
    unsigned m_maxZeros;
    unsigned m_maxLength;
    std::vector<int32_t> m_single; ///< level << 8 | length, 0 when the code needs ReadLong
    /// Up to six codes per entry, when s <= 127: int8 levels in bytes 0-5, their count in
    /// byte 6 (0: the first code needs ReadLong), the bits they take in byte 7.
    std::vector<uint64_t> m_multi;
};

} // namespace fedran::internal

#endif
