#include "compression/internal/qsgd-coding.h"

#include "compression/internal/scales.h"
#include "compression/internal/simd-level.h"

#include <algorithm>
#include <bit>
#include <map>
#include <mutex>
#include <string>

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

namespace fedran::internal
{

namespace
{

constexpr uint32_t kMaxSingleLevels = 2047; ///< codes of up to 24 bits fit a table entry
constexpr uint32_t kMaxQuadLevels = 31;     ///< quads pay off when levels <= 3 are the rule
constexpr uint32_t kMaxMultiLevels = 127;   ///< levels fit an int8
constexpr unsigned kTableBits = 11;         ///< stream bits per single-code lookup
constexpr uint32_t kTableMask = (1u << kTableBits) - 1;
constexpr unsigned kMultiBits = 12; ///< stream bits per multi-code lookup (a 32 KiB table)
constexpr uint32_t kMultiMask = (1u << kMultiBits) - 1;
constexpr unsigned kMultiCodes = 6;
constexpr uint64_t kMultiCountMask = uint64_t{0xFF} << 48;

uint64_t
CodeBits(uint32_t level, uint32_t negative)
{
    const unsigned gamma = EliasGammaLength(uint64_t{level} + 1);
    const uint64_t sign = level > 0 ? uint64_t{negative} << gamma : 0;
    return EliasGammaBits(uint64_t{level} + 1) | sign;
}

/// Parses one code from the low `available` bits of `bits`; false if it does not fit or its
/// level exceeds s (the slow path then reports the error).
bool
ParseCode(uint32_t bits, unsigned available, uint32_t levels, int32_t& level, unsigned& length)
{
    const uint32_t window = available >= 32 ? bits : bits & ((1u << available) - 1);
    if (window == 0)
    {
        return false;
    }
    const auto zeros = static_cast<unsigned>(std::countr_zero(window));
    length = 2 * zeros + 1;
    if (length > available)
    {
        return false;
    }
    const uint32_t value = (1u << zeros) | ((bits >> (zeros + 1)) & ((1u << zeros) - 1));
    if (value > levels + 1)
    {
        return false;
    }
    level = static_cast<int32_t>(value - 1);
    if (level > 0)
    {
        if (length + 1 > available)
        {
            return false;
        }
        level = (bits >> length) & 1 ? -level : level;
        ++length;
    }
    return true;
}

/// The coders of the last few s used in this process. Bounded, because a decoder meets
/// whatever s a payload claims.
template<typename Coder>
std::shared_ptr<const Coder>
SharedCoder(uint32_t levels)
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

} // namespace

std::shared_ptr<const QsgdCodeWriter>
QsgdCodeWriter::For(uint32_t levels)
{
    return SharedCoder<QsgdCodeWriter>(levels);
}

std::shared_ptr<const QsgdCodeReader>
QsgdCodeReader::For(uint32_t levels)
{
    return SharedCoder<QsgdCodeReader>(levels);
}

QsgdCodeWriter::QsgdCodeWriter(uint32_t levels)
    : m_levels(levels)
    , m_maxLength(QsgdCodeLength(levels))
{
    if (levels <= kMaxSingleLevels)
    {
        m_single.resize(2 * (size_t{levels} + 1));
        for (uint32_t idx = 0; idx < m_single.size(); ++idx)
        {
            const uint32_t level = idx >> 1;
            m_single[idx] = static_cast<uint32_t>(CodeBits(level, idx & 1)) | QsgdCodeLength(level)
                                                                                  << 24;
        }
    }
    if (levels <= kMaxQuadLevels)
    {
        m_quad.resize(size_t{1} << 12);
        for (uint32_t quad = 0; quad < m_quad.size(); ++quad)
        {
            uint64_t code = 0;
            unsigned length = 0;
            for (int k = 0; k < 4; ++k)
            {
                const uint32_t idx = (quad >> (3 * k)) & 7;
                code |= CodeBits(idx >> 1, idx & 1) << length;
                length += QsgdCodeLength(idx >> 1);
            }
            m_quad[quad] = static_cast<uint32_t>(code) | length << 24;
        }
    }
}

BitCursor
QsgdCodeWriter::WriteQuads(BitCursor c, const uint32_t* idx, size_t n) const
{
    // Per 8 elements: two quad indices, and a mask that is non-zero when some idx >= 8.
    uint32_t quads[kMaxCodes / 4];
    uint16_t overflow[kMaxCodes / 8];
    const size_t groups = n / 8;
    size_t g = 0;
#if defined(__SSE2__)
    if (ActiveSimdLevel() >= SimdLevel::kSse2)
    {
        const __m128i seven = _mm_set1_epi16(7);
        const __m128i radix8 = _mm_set1_epi32(1 | 8 << 16);
        const __m128i radix64 = _mm_set1_epi32(1 | 64 << 16);
        for (; groups - g >= 2; g += 2)
        {
            const auto* p = reinterpret_cast<const __m128i*>(idx + 8 * g);
            // Saturation to int16 keeps large idx large, so the masks still flag them.
            const __m128i a = _mm_packs_epi32(_mm_loadu_si128(p), _mm_loadu_si128(p + 1));
            const __m128i b = _mm_packs_epi32(_mm_loadu_si128(p + 2), _mm_loadu_si128(p + 3));
            overflow[g] = static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpgt_epi16(a, seven)));
            overflow[g + 1] = static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpgt_epi16(b, seven)));
            const __m128i halves =
                _mm_packs_epi32(_mm_madd_epi16(a, radix8), _mm_madd_epi16(b, radix8));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(quads + 2 * g),
                             _mm_madd_epi16(halves, radix64));
        }
    }
#endif
    for (; g < groups; ++g)
    {
        const uint32_t* e = idx + 8 * g;
        uint32_t any = 0;
        for (int k = 0; k < 8; ++k)
        {
            any |= e[k] > 7 ? 1u : 0u;
        }
        overflow[g] = static_cast<uint16_t>(any);
        quads[2 * g] = e[0] | e[1] << 3 | e[2] << 6 | e[3] << 9;
        quads[2 * g + 1] = e[4] | e[5] << 3 | e[6] << 6 | e[7] << 9;
    }
    const uint32_t* quad = m_quad.data();
    const uint32_t* single = m_single.data();
    for (g = 0; g < groups; ++g)
    {
        if (overflow[g] == 0) [[likely]]
        {
            const uint32_t first = quad[quads[2 * g]];
            const uint32_t second = quad[quads[2 * g + 1]];
            const unsigned firstLength = first >> 24;
            PutBits(c,
                    (first & 0xFFFFFF) | uint64_t{second & 0xFFFFFF} << firstLength,
                    firstLength + (second >> 24));
            continue;
        }
        // A level above 3: four codes of at most 12 bits (s <= 31) per store.
        for (int half = 0; half < 2; ++half)
        {
            uint64_t bits = 0;
            unsigned length = 0;
            for (int k = 0; k < 4; ++k)
            {
                const uint32_t entry = single[idx[8 * g + 4 * half + k]];
                bits |= uint64_t{entry & 0xFFFFFF} << length;
                length += entry >> 24;
            }
            PutBits(c, bits, length);
        }
    }
    return c;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) BitCursor
QsgdCodeWriter::WriteAvx2(BitCursor c, const uint32_t* idx, size_t n) const
{
    const __m256i one = _mm256_set1_epi32(1);
    for (size_t i = 0; i < n; i += 8)
    {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx + i));
        PutQsgdCodes8Avx2(c, _mm256_srli_epi32(x, 1), _mm256_and_si256(x, one));
    }
    return c;
}
#else
BitCursor
QsgdCodeWriter::WriteAvx2(BitCursor c, const uint32_t*, size_t) const
{
    return c;
}
#endif

void
QsgdCodeWriter::Write(BitWriter& writer, const uint32_t* idx, size_t n) const
{
    BitCursor c = writer.Open(n * m_maxLength);
    size_t i = 0;
#if defined(__x86_64__)
    if (m_levels <= kQsgdMaxAvx2WriteLevels && ActiveSimdLevel() >= SimdLevel::kAvx2)
    {
        i = n & ~size_t{7};
        c = WriteAvx2(c, idx, i);
    }
    else
#endif
        if (!m_quad.empty())
    {
        i = n & ~size_t{7};
        c = WriteQuads(c, idx, i);
    }
    if (!m_single.empty())
    {
        // As many codes as surely fit in 56 bits per store.
        const size_t batch = 56 / m_maxLength;
        const uint32_t* table = m_single.data();
        while (i < n)
        {
            const size_t end = std::min(n, i + batch);
            uint64_t bits = 0;
            unsigned length = 0;
            for (; i < end; ++i)
            {
                const uint32_t entry = table[idx[i]];
                bits |= uint64_t{entry & 0xFFFFFF} << length;
                length += entry >> 24;
            }
            PutBits(c, bits, length);
        }
    }
    for (; i < n; ++i)
    {
        const uint32_t level = idx[i] >> 1;
        PutBits(c, CodeBits(level, idx[i] & 1), QsgdCodeLength(level));
    }
    writer.Commit(c);
}

QsgdCodeReader::QsgdCodeReader(uint32_t levels)
    : m_levels(levels)
    , m_maxZeros(static_cast<unsigned>(std::bit_width(levels + 1)) - 1)
    , m_maxLength(QsgdCodeLength(levels))
    , m_single(size_t{1} << kTableBits, 0)
{
    for (uint32_t bits = 0; bits <= kTableMask; ++bits)
    {
        int32_t level;
        unsigned length;
        if (ParseCode(bits, kTableBits, levels, level, length))
        {
            m_single[bits] = static_cast<int32_t>(static_cast<uint32_t>(level) << 8 | length);
        }
    }
    if (levels <= kMaxMultiLevels)
    {
        m_multi.resize(size_t{1} << kMultiBits);
        for (uint32_t bits = 0; bits <= kMultiMask; ++bits)
        {
            unsigned used = 0;
            unsigned count = 0;
            uint64_t entry = 0;
            int32_t level;
            unsigned length;
            while (count < kMultiCodes &&
                   ParseCode(bits >> used, kMultiBits - used, levels, level, length))
            {
                entry |= uint64_t{static_cast<uint32_t>(level) & 0xFF} << (8 * count);
                used += length;
                ++count;
            }
            m_multi[bits] = entry | uint64_t{count} << 48 | uint64_t{used} << 56;
        }
    }
}

int32_t
QsgdCodeReader::ReadLong(BitReader& bits, uint64_t& pos) const
{
    const uint64_t start = pos;
    uint64_t value;
    if (pos < bits.FastLimit())
    {
        // Every valid code fits in the 57 peeked bits.
        const uint64_t word = bits.PeekFast(pos);
        const auto zeros = static_cast<unsigned>(std::countr_zero(word));
        if (zeros > m_maxZeros)
        {
            bits.FailAt("Elias code too long for s = " + std::to_string(m_levels), start);
        }
        value = (uint64_t{1} << zeros) | ((word >> (zeros + 1)) & ((uint64_t{1} << zeros) - 1));
        pos += 2 * zeros + 1;
    }
    else
    {
        bits.Seek(pos);
        value = bits.ReadEliasGamma();
        pos = bits.BitPosition();
    }
    if (value > uint64_t{m_levels} + 1)
    {
        bits.FailAt("level " + std::to_string(value - 1) +
                        " exceeds s = " + std::to_string(m_levels),
                    start);
    }
    auto level = static_cast<int32_t>(value - 1);
    if (level > 0)
    {
        bits.Seek(pos);
        if (bits.ReadBits(1) != 0)
        {
            level = -level;
        }
        ++pos;
    }
    return level;
}

int32_t
QsgdCodeReader::ReadOne(BitReader& bits, uint64_t& pos) const
{
    if (pos < bits.FastLimit())
    {
        const int32_t entry = m_single[bits.PeekFast(pos) & kTableMask];
        if (entry != 0)
        {
            pos += static_cast<uint32_t>(entry) & 0xFF;
            return entry >> 8;
        }
    }
    return ReadLong(bits, pos);
}

uint64_t
QsgdCodeReader::StoreLong(BitReader& bits, uint64_t pos, float* out, float scale) const
{
    *out = static_cast<float>(ReadLong(bits, pos)) * scale;
    return pos;
}

void
QsgdCodeReader::FailLength(const QsgdBuckets& buckets, size_t j, uint64_t used) const
{
    throw DecodeError("the codes of bucket " + std::to_string(j) + " take " +
                          std::to_string(used) + " bits, its length field says " +
                          std::to_string(buckets.starts[j + 1] - buckets.starts[j]),
                      buckets.lengthsAt + j * buckets.lengthBytes);
}

void
QsgdCodeReader::ReadBucket(BitReader& bits, const QsgdBuckets& buckets, size_t j) const
{
    const size_t first = j * size_t{buckets.size};
    const size_t n = std::min<size_t>(buckets.size, buckets.out.size() - first);
    const float step = ScaleAt(buckets.norms, j) / static_cast<float>(m_levels);
    float* out = buckets.out.data() + first;
    uint64_t pos = buckets.starts[j];
    for (size_t i = 0; i < n; ++i)
    {
        out[i] = static_cast<float>(ReadOne(bits, pos)) * step;
    }
    if (pos != buckets.starts[j + 1])
    {
        FailLength(buckets, j, pos - buckets.starts[j]);
    }
}

void
QsgdCodeReader::ReadBuckets(BitReader& bits, const QsgdBuckets& buckets) const
{
    try
    {
        if (ReadInterleaved(bits, buckets))
        {
            return;
        }
    }
    catch (const DecodeError&)
    {
        // The interleaved order may meet a later bucket's error first: decode again in order
        // below, which throws the first one, so that every path reports the same error.
    }
    for (size_t j = 0; j + 1 < buckets.starts.size(); ++j)
    {
        ReadBucket(bits, buckets, j);
    }
}

bool
QsgdCodeReader::ReadInterleaved(BitReader& bits, const QsgdBuckets& buckets) const
{
#if defined(__x86_64__)
    if (!m_multi.empty() && ActiveSimdLevel() >= SimdLevel::kAvx2)
    {
        ReadInterleavedAvx2(bits, buckets);
        return true;
    }
#endif
    return false;
}

#if defined(__x86_64__)

namespace
{

/// Decoding state of one bucket in the interleaved loop.
struct Lane
{
    uint64_t pos;     ///< next stream bit
    float* out;       ///< next output
    const float* end; ///< one past the bucket's last output
    float scale;      ///< norm / s
    size_t bucket;
};

/// A double step decodes at most 2 x 6 codes, and each store writes 2 floats beyond its
/// codes (which the next store or the lane's last codes overwrite).
constexpr size_t kStepReach = 2 * kMultiCodes + 2;

/// Converts the six int8 levels of a table entry (and its two metadata bytes) to floats times
/// the step and stores all eight.
__attribute__((target("avx2,bmi2"), always_inline)) inline void
StoreEntryAvx2(float* out, const uint64_t* entry, __m256 step)
{
    const __m256i levels =
        _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(entry)));
    _mm256_storeu_ps(out, _mm256_mul_ps(_mm256_cvtepi32_ps(levels), step));
}

/// One table lookup (pos < the stream's FastLimit). False when the entry holds no code.
__attribute__((target("avx2,bmi2"), always_inline)) inline bool
StepAvx2(const uint8_t* data, const uint64_t* table, uint64_t& pos, float*& out, __m256 step)
{
    const uint64_t word = LoadLe64(data + pos / 8) >> (pos % 8);
    const uint64_t* entry = table + (word & kMultiMask);
    const uint64_t e = *entry;
    if ((e & kMultiCountMask) == 0) [[unlikely]]
    {
        return false;
    }
    StoreEntryAvx2(out, entry, step);
    out += (e >> 48) & 0xFF;
    pos += e >> 56;
    return true;
}

/// Single lookups while 8 floats may be stored. False if it stopped at a long or invalid code.
__attribute__((target("avx2,bmi2"))) bool
TailAvx2(const uint8_t* data, const uint64_t* table, Lane& lane)
{
    uint64_t pos = lane.pos;
    float* out = lane.out;
    const __m256 step = _mm256_set1_ps(lane.scale);
    bool done = true;
    while (out + 8 <= lane.end)
    {
        if (!StepAvx2(data, table, pos, out, step))
        {
            done = false;
            break;
        }
    }
    lane.pos = pos;
    lane.out = out;
    return done;
}

/// Two table lookups from one 64-bit load (pos < the stream's FastLimit). False when an entry
/// holds no code (a long or an invalid one), with pos and out just before that code.
__attribute__((target("avx2,bmi2"), always_inline)) inline bool
DoubleStepAvx2(const uint8_t* data, const uint64_t* table, uint64_t& pos, float*& out, __m256 step)
{
    const uint64_t word = LoadLe64(data + pos / 8) >> (pos % 8);
    const uint64_t* first = table + (word & kMultiMask);
    const uint64_t e1 = *first;
    if ((e1 & kMultiCountMask) == 0) [[unlikely]]
    {
        return false;
    }
    StoreEntryAvx2(out, first, step);
    out += (e1 >> 48) & 0xFF;
    const auto used = static_cast<unsigned>(e1 >> 56);
    const uint64_t* second = table + ((word >> used) & kMultiMask);
    const uint64_t e2 = *second;
    if ((e2 & kMultiCountMask) == 0) [[unlikely]]
    {
        pos += used;
        return false;
    }
    StoreEntryAvx2(out, second, step);
    out += (e2 >> 48) & 0xFF;
    pos += used + (e2 >> 56);
    return true;
}

} // namespace

__attribute__((target("avx2,bmi2"))) void
QsgdCodeReader::ReadInterleavedAvx2(BitReader& bits, const QsgdBuckets& buckets) const
{
    const size_t count = buckets.starts.size() - 1;
    const uint64_t fastLimit = bits.FastLimit();
    const uint8_t* data = bits.Data();
    const uint64_t* table = m_multi.data();
    const float levels = static_cast<float>(m_levels);

    size_t next = 0; // the next bucket to hand out
    // Gives `lane` the next bucket that is long enough for the loop and whose codes can all be
    // peeked at (each takes at most m_maxLength bits), decoding the others on their own; false
    // when no bucket is left.
    auto claim = [&](Lane& lane) {
        while (next < count)
        {
            const size_t j = next++;
            const size_t first = j * size_t{buckets.size};
            const size_t n = std::min<size_t>(buckets.size, buckets.out.size() - first);
            const uint64_t pos = buckets.starts[j];
            if (n < 2 * kStepReach || pos + uint64_t{m_maxLength} * n > fastLimit)
            {
                ReadBucket(bits, buckets, j);
                continue;
            }
            lane.pos = pos;
            lane.out = buckets.out.data() + first;
            lane.end = lane.out + n;
            lane.scale = ScaleAt(buckets.norms, j) / levels;
            lane.bucket = j;
            return true;
        }
        return false;
    };
    // The lane's last codes: single lookups while 8 floats may be stored, then one by one;
    // then the check that they end its bit range.
    auto finish = [&](Lane& lane) {
        while (!TailAvx2(data, table, lane))
        {
            lane.pos = StoreLong(bits, lane.pos, lane.out++, lane.scale);
        }
        for (; lane.out < lane.end; ++lane.out)
        {
            *lane.out = static_cast<float>(ReadOne(bits, lane.pos)) * lane.scale;
        }
        if (lane.pos != buckets.starts[lane.bucket + 1])
        {
            FailLength(buckets, lane.bucket, lane.pos - buckets.starts[lane.bucket]);
        }
    };

    Lane lanes[4] = {};
    bool live = claim(lanes[0]) && claim(lanes[1]) && claim(lanes[2]) && claim(lanes[3]);
    while (live)
    {
        // Four chains of loads interleave in registers until one lane nears its end.
        uint64_t p0 = lanes[0].pos, p1 = lanes[1].pos, p2 = lanes[2].pos, p3 = lanes[3].pos;
        float *o0 = lanes[0].out, *o1 = lanes[1].out, *o2 = lanes[2].out, *o3 = lanes[3].out;
        const float* const s0 = lanes[0].end - kStepReach;
        const float* const s1 = lanes[1].end - kStepReach;
        const float* const s2 = lanes[2].end - kStepReach;
        const float* const s3 = lanes[3].end - kStepReach;
        const __m256 t0 = _mm256_set1_ps(lanes[0].scale);
        const __m256 t1 = _mm256_set1_ps(lanes[1].scale);
        const __m256 t2 = _mm256_set1_ps(lanes[2].scale);
        const __m256 t3 = _mm256_set1_ps(lanes[3].scale);
        while (o0 <= s0 && o1 <= s1 && o2 <= s2 && o3 <= s3)
        {
            if (!DoubleStepAvx2(data, table, p0, o0, t0)) [[unlikely]]
            {
                p0 = StoreLong(bits, p0, o0++, lanes[0].scale);
            }
            if (!DoubleStepAvx2(data, table, p1, o1, t1)) [[unlikely]]
            {
                p1 = StoreLong(bits, p1, o1++, lanes[1].scale);
            }
            if (!DoubleStepAvx2(data, table, p2, o2, t2)) [[unlikely]]
            {
                p2 = StoreLong(bits, p2, o2++, lanes[2].scale);
            }
            if (!DoubleStepAvx2(data, table, p3, o3, t3)) [[unlikely]]
            {
                p3 = StoreLong(bits, p3, o3++, lanes[3].scale);
            }
        }
        lanes[0].pos = p0, lanes[1].pos = p1, lanes[2].pos = p2, lanes[3].pos = p3;
        lanes[0].out = o0, lanes[1].out = o1, lanes[2].out = o2, lanes[3].out = o3;
        for (Lane& lane : lanes)
        {
            if (lane.out > lane.end - kStepReach)
            {
                finish(lane);
                if (!claim(lane))
                {
                    lane.out = nullptr; // done
                    live = false;
                }
            }
        }
    }
    // Fewer buckets than lanes remain: finish them one at a time.
    for (Lane& lane : lanes)
    {
        if (lane.out == nullptr)
        {
            continue;
        }
        uint64_t pos = lane.pos;
        float* out = lane.out;
        const __m256 step = _mm256_set1_ps(lane.scale);
        while (out <= lane.end - kStepReach)
        {
            if (!DoubleStepAvx2(data, table, pos, out, step))
            {
                pos = StoreLong(bits, pos, out++, lane.scale);
            }
        }
        lane.pos = pos;
        lane.out = out;
        finish(lane);
    }
}

#endif

} // namespace fedran::internal
