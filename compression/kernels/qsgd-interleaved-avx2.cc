// The AVX2 loop that decodes four qsgd buckets at once, interleaved (see qsgd-coding.h for
// why): its own file because it is the one hot loop of the decoder and the rest of the coder
// reads better without it.

#include "compression/internal/qsgd-coding.h"
#include "compression/internal/scales.h"

namespace fedran::internal
{

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
constexpr size_t kStepReach = 2 * kQsgdMultiCodes + 2;

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
    const uint64_t* entry = table + (word & kQsgdMultiMask);
    const uint64_t e = *entry;
    if ((e & kQsgdMultiCountMask) == 0) [[unlikely]]
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
    const uint64_t* first = table + (word & kQsgdMultiMask);
    const uint64_t e1 = *first;
    if ((e1 & kQsgdMultiCountMask) == 0) [[unlikely]]
    {
        return false;
    }
    StoreEntryAvx2(out, first, step);
    out += (e1 >> 48) & 0xFF;
    const auto used = static_cast<unsigned>(e1 >> 56);
    const uint64_t* second = table + ((word >> used) & kQsgdMultiMask);
    const uint64_t e2 = *second;
    if ((e2 & kQsgdMultiCountMask) == 0) [[unlikely]]
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
