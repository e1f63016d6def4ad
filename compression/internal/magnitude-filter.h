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

} // namespace fedran::internal

#endif
