#ifndef FEDRAN_TESTS_COMPRESSION_DGC_TEST_UTIL_H
#define FEDRAN_TESTS_COMPRESSION_DGC_TEST_UTIL_H

// Helpers shared by the dgc tests of both modes (dgc-codec-test.cc, dgc-step-mode-test.cc).
// Test-only.

#include "compression/codec.h"
#include "compression/internal/dgc-codec.h"
#include "compression/rng.h"

#include <cstdint>
#include <vector>

namespace fedran::testing
{

inline const internal::DgcCodec&
AsDgc(const Codec& codec)
{
    return dynamic_cast<const internal::DgcCodec&>(codec);
}

inline std::vector<float>
RandomVector(size_t n, Rng& rng, double scale = 1.0)
{
    std::vector<float> x(n);
    for (float& value : x)
    {
        value = static_cast<float>(scale * rng.Normal());
    }
    return x;
}

inline size_t
NonZeros(const std::vector<float>& x)
{
    size_t count = 0;
    for (const float value : x)
    {
        count += value != 0.0f;
    }
    return count;
}

inline std::vector<uint8_t>
Encode(Codec& codec, const TensorLayout& layout, const std::vector<float>& update, Rng& rng)
{
    std::vector<uint8_t> payload;
    codec.Encode(layout, update, rng, payload);
    return payload;
}

inline std::vector<float>
Decode(Codec& codec, const TensorLayout& layout, const std::vector<uint8_t>& payload)
{
    std::vector<float> decoded(layout.TotalSize());
    codec.Decode(layout, payload, decoded);
    return decoded;
}

} // namespace fedran::testing

#endif
