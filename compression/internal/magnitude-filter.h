#ifndef FEDRAN_COMPRESSION_INTERNAL_MAGNITUDE_FILTER_H
#define FEDRAN_COMPRESSION_INTERNAL_MAGNITUDE_FILTER_H

// Magnitude keys and the one streaming pass that every magnitude-based sparsifier needs:
// "collect the elements at least this large".

#include <bit>
#include <cstdint>
#include <span>
#include <vector>

namespace fedran::internal
{

/// The bits of x with the sign cleared. For non-NaN floats, |a| < |b| iff key(a) < key(b) as
/// unsigned integers; every NaN maps above +inf (0x7f800000), ordered by its payload bits.
inline uint32_t
MagnitudeKey(float x)
{
    return std::bit_cast<uint32_t>(x) & 0x7fffffffu;
}

/// Appends, in ascending i, every i with MagnitudeKey(x[i]) >= minKey to `indices` and x[i]
/// (bit-exact) to `values`. minKey may be up to 2^31, which selects nothing. x.size() must be
/// at most 2^32. Runs at memory speed when few elements qualify (SSE2 compare + movemask,
/// scalar work only for blocks of 16 that contain a hit).
void CollectAtLeast(std::span<const float> x,
                    uint32_t minKey,
                    std::vector<uint32_t>& indices,
                    std::vector<float>& values);

/// What error feedback compresses, formed in place: e[i] = g[i] + beta * e[i], or g[i] + 0.0f
/// when `fresh` (e is then new memory that is not read). The same float operations however
/// it is computed (a product and a sum, never fused), so every path gives the same bits.
struct Compensation
{
    std::span<const float> g;
    float beta;
    bool fresh;

    float At(size_t i, const float* e) const
    {
        return fresh ? g[i] + 0.0f : g[i] + beta * e[i];
    }

    /// Forms e[begin, end) in place.
    void Apply(std::span<float> e, size_t begin, size_t end) const;
};

/// Forms e in place (`compensation`, e.size() == compensation.g.size()) and, in the same
/// pass, does what CollectAtLeast(e, minKey, indices, values) would do afterwards.
void CollectAtLeastCompensated(const Compensation& compensation,
                               std::span<float> e,
                               uint32_t minKey,
                               std::vector<uint32_t>& indices,
                               std::vector<float>& values);

/// DGC's momentum correction and accumulation of one tensor (dgc-codec.h, mode round), formed
/// in place: u = momentum * u + scale * g, then v = v + u. The same float operations however it
/// is computed (products and sums, never fused), so every path gives the same bits.
struct MomentumStep
{
    /// What u and v held before this step.
    enum class Before
    {
        /// Zero, in new memory that is not read: u = scale * g + 0.0f, and v = 0.0f + u,
        /// which is u bit for bit (u is never -0.0f), so v is not written: the caller passes
        /// u's buffer as v.
        Zero,
        /// v equal to u bit for bit, held in u's buffer (after a Zero step and its masking):
        /// v's new values go to a buffer of their own, v = u_before + u.
        VIsU,
        /// Both held separately.
        Separate,
    };

    std::span<const float> g;
    float momentum;
    float scale;
    Before before;

    /// The new v[i], nothing written.
    float VAt(size_t i, const float* u, const float* v) const
    {
        switch (before)
        {
            case Before::Zero:
                return scale * g[i] + 0.0f;
            case Before::VIsU:
                return u[i] + (momentum * u[i] + scale * g[i]);
            case Before::Separate:
                break;
        }
        return v[i] + (momentum * u[i] + scale * g[i]);
    }

    /// Requests the cache lines VAt(i, u, v) reads.
    void Prefetch(size_t i, const float* u, const float* v) const
    {
        __builtin_prefetch(g.data() + i);
        if (before != Before::Zero)
        {
            __builtin_prefetch(u + i);
        }
        if (before == Before::Separate)
        {
            __builtin_prefetch(v + i);
        }
    }

    /// Forms u and v over [begin, end).
    void Apply(float* u, float* v, size_t begin, size_t end) const;
};

/// Forms u and v of `step` over n elements (v == u when step.before is Zero) and, in the same
/// pass, does what CollectAtLeast(v, minKey, indices, values) would do afterwards.
void CollectAtLeastStepped(const MomentumStep& step,
                           float* u,
                           float* v,
                           size_t n,
                           uint32_t minKey,
                           std::vector<uint32_t>& indices,
                           std::vector<float>& values);

} // namespace fedran::internal

#endif
