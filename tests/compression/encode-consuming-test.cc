// Codec::EncodeConsuming against Encode: a codec that starts its state in the handed-over
// update's memory (error feedback's residual, DGC's momentum) must send the same bytes and keep
// the same state, bit for bit, round after round, on every vector path; and the streaming pass
// that forms that state (magnitude-filter.h) must collect the same hits on every path.

#include "compression/codec-spec.h"
#include "compression/internal/dgc-codec.h"
#include "compression/internal/error-feedback-codec.h"
#include "compression/internal/magnitude-filter.h"
#include "quantization-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

namespace fedran
{
namespace
{

using nlohmann::json;
using testing::kSimdLevels;
using testing::SimdCap;

/// Tensors whose sizes are not whole blocks of 16, the largest past the sampled selection's
/// threshold.
TensorLayout
Layout()
{
    return TensorLayout({{"w", {300, 1001}}, {"b", {37}}, {"c", {5}}});
}

/// Normal values with signed zeros, a signalling NaN, infinities and subnormals mixed in at
/// seeded positions: the values whose bits g + 0.0f or 1.0f * g + 0.0f change.
std::vector<float>
Update(size_t n, uint64_t seed, bool special)
{
    Rng rng(seed, 0);
    std::vector<float> x(n);
    for (float& v : x)
    {
        v = static_cast<float>(rng.Normal());
        if (!special)
        {
            continue;
        }
        const uint64_t r = rng.UniformInt(50);
        v = r == 0   ? -0.0f
            : r == 1 ? std::bit_cast<float>(uint32_t{0x7f800001}) // signalling NaN
            : r == 2 ? std::numeric_limits<float>::infinity()
            : r == 3 ? -std::numeric_limits<float>::denorm_min()
                     : v;
    }
    return x;
}

void
ExpectSameBits(std::span<const float> actual, std::span<const float> expected, const char* what)
{
    ASSERT_EQ(actual.size(), expected.size()) << what;
    for (size_t i = 0; i < actual.size(); ++i)
    {
        ASSERT_EQ(std::bit_cast<uint32_t>(actual[i]), std::bit_cast<uint32_t>(expected[i]))
            << what << "[" << i << "]";
    }
}

/// Three rounds of `spec` through Encode and through EncodeConsuming, payloads and `state`
/// compared after each.
template<typename State>
void
ExpectSameAsEncode(const json& spec, bool special, State state)
{
    const TensorLayout layout = Layout();
    for (const internal::SimdLevel level : kSimdLevels)
    {
        const SimdCap cap(level);
        auto kept = MakeCodec(spec, "compression.uplink");
        auto consumed = MakeCodec(spec, "compression.uplink");
        Rng keptRng(9, 1);
        Rng consumedRng(9, 1);
        for (uint32_t round = 1; round <= 3; ++round)
        {
            const std::vector<float> update = Update(layout.TotalSize(), round, special);
            kept->BeginRound(round);
            consumed->BeginRound(round);
            std::vector<uint8_t> keptPayload;
            std::vector<uint8_t> consumedPayload;
            kept->Encode(layout, update, keptRng, keptPayload);
            std::vector<float> handedOver = update;
            consumed->EncodeConsuming(layout, std::move(handedOver), consumedRng, consumedPayload);
            ASSERT_EQ(consumedPayload, keptPayload)
                << spec.dump() << " round " << round << " level " << int(level);
            state(*consumed, *kept);
        }
    }
}

void
SameResidual(const Codec& consumed, const Codec& kept)
{
    ExpectSameBits(dynamic_cast<const internal::ErrorFeedbackCodec&>(consumed).Residual(),
                   dynamic_cast<const internal::ErrorFeedbackCodec&>(kept).Residual(),
                   "residual");
}

void
SameMomentumAndAccumulation(const Codec& consumed, const Codec& kept)
{
    const auto& a = dynamic_cast<const internal::DgcCodec&>(consumed);
    const auto& b = dynamic_cast<const internal::DgcCodec&>(kept);
    ExpectSameBits(a.Momentum(), b.Momentum(), "momentum");
    ExpectSameBits(a.Accumulation(), b.Accumulation(), "accumulation");
}

TEST(EncodeConsuming, ErrorFeedbackSendsAndKeepsWhatEncodeDoes)
{
    const json topK = {{"type", "top_k"}, {"ratio", 0.01}};
    for (const bool special : {false, true})
    {
        ExpectSameAsEncode({{"type", "error_feedback"}, {"base", topK}}, special, SameResidual);
        ExpectSameAsEncode(
            {{"type", "error_feedback"}, {"base", topK}, {"error_compensation", 0.5}},
            special,
            SameResidual);
    }
    // A base that is not sparse: the residual is formed in place, then decoded and subtracted.
    ExpectSameAsEncode(
        {{"type", "error_feedback"}, {"base", {{"type", "quantization"}, {"bits", 4}}}},
        false,
        SameResidual);
}

TEST(EncodeConsuming, DgcSendsAndKeepsWhatEncodeDoes)
{
    for (const bool special : {false, true})
    {
        ExpectSameAsEncode({{"type", "dgc"}, {"mode", "round"}, {"ratio", 0.01}},
                           special,
                           SameMomentumAndAccumulation);
    }
    // Clipping scales g, so the in-place pass writes every block.
    ExpectSameAsEncode({{"type", "dgc"}, {"mode", "round"}, {"ratio", 0.01}, {"clip_norm", 5.0}},
                       false,
                       SameMomentumAndAccumulation);
}

TEST(EncodeConsuming, ErrorFeedbackStartsItsResidualInTheUpdatesMemory)
{
    const TensorLayout layout = Layout();
    auto codec = MakeCodec({{"type", "error_feedback"}, {"base", {{"type", "top_k"}, {"k", 3}}}},
                           "compression.uplink");
    std::vector<float> update = Update(layout.TotalSize(), 4, false);
    const float* memory = update.data();
    Rng rng(1, 0);
    std::vector<uint8_t> payload;
    codec->EncodeConsuming(layout, std::move(update), rng, payload);
    EXPECT_EQ(dynamic_cast<const internal::ErrorFeedbackCodec&>(*codec).Residual().data(), memory);
    // A codec without such state leaves the update alone.
    auto plain = MakeCodec({{"type", "top_k"}, {"k", 3}}, "compression.uplink");
    std::vector<float> kept = Update(layout.TotalSize(), 4, false);
    const std::vector<float> copy = kept;
    plain->EncodeConsuming(layout, std::move(kept), rng, payload);
    EXPECT_EQ(kept, copy);
}

/// Every path of the streaming pass collects exactly the elements at or above the bound, in
/// order, and forms the same residual.
TEST(MagnitudeFilter, EveryPathCollectsTheSameHits)
{
    using internal::Compensation;
    const std::vector<float> g = Update(100'003, 11, true);
    const std::vector<float> before = Update(100'003, 12, false);
    for (const uint32_t minKey : {internal::MagnitudeKey(2.0f), uint32_t{0}, uint32_t{0x7f800000}})
    {
        std::vector<uint32_t> expectedIndices;
        std::vector<float> expectedValues;
        for (size_t i = 0; i < g.size(); ++i)
        {
            if (internal::MagnitudeKey(g[i]) >= minKey)
            {
                expectedIndices.push_back(static_cast<uint32_t>(i));
                expectedValues.push_back(g[i]);
            }
        }
        for (const internal::SimdLevel level : kSimdLevels)
        {
            const SimdCap cap(level);
            std::vector<uint32_t> indices;
            std::vector<float> values;
            internal::CollectAtLeast(g, minKey, indices, values);
            ASSERT_EQ(indices, expectedIndices) << "level " << int(level);
            ExpectSameBits(values, expectedValues, "values");

            // Compensated, from a residual and fresh in the update's own memory.
            std::vector<float> expectedE = before;
            const Compensation kept{g, 0.5f, false};
            kept.Apply(expectedE, 0, expectedE.size());
            std::vector<float> e = before;
            internal::CollectAtLeastCompensated(kept, e, minKey, indices, values);
            ExpectSameBits(e, expectedE, "e");
            std::vector<float> inPlace = g;
            const Compensation fresh{inPlace, 1.0f, true};
            std::vector<float> expectedFresh(g.size());
            fresh.Apply(expectedFresh, 0, expectedFresh.size());
            internal::CollectAtLeastCompensated(fresh, inPlace, minKey, indices, values);
            ExpectSameBits(inPlace, expectedFresh, "in place");
        }
    }
}

} // namespace
} // namespace fedran
