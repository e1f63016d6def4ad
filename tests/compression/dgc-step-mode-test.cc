// dgc's mode "step" (the default): the per-step state the trainer hands its gradients to
// (clipping, momentum correction, accumulation; the direction it returns), the round's
// selection of -lr * v with momentum factor masking, the warm-up by the client's epochs, and
// the keys only one mode takes. Through a real client and server against the paper's
// Algorithm 1: tests/fl/dgc-per-step-test.cc.

#include "compression/codec-spec.h"
#include "compression/internal/dgc-codec.h"
#include "compression/internal/sum-of-squares.h"
#include "compression/internal/top-k-select.h"
#include "dgc-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <vector>

namespace fedran
{
namespace
{

using internal::DgcCodec;
using nlohmann::json;

using testing::AsDgc;
using testing::Decode;
using testing::Encode;
using testing::NonZeros;
using testing::RandomVector;

std::unique_ptr<Codec>
MakeStep(json spec)
{
    spec["type"] = "dgc";
    return MakeCodec(spec, "compression.uplink");
}

TEST(DgcStepMode, IsTheDefaultAndNeedsLocalTrainingBeforeEncode)
{
    const TensorLayout layout({{"w", {8, 8}}});
    auto step = MakeCodec(json{{"type", "dgc"}}, "compression.uplink");
    ASSERT_NE(step->StepState(), nullptr);
    EXPECT_EQ(
        MakeCodec(json{{"type", "dgc"}, {"mode", "round"}}, "compression.uplink")->StepState(),
        nullptr);
    Rng rng(9, 1);
    std::vector<uint8_t> out;
    try
    {
        step->Encode(layout, std::vector<float>(64, 1.0f), rng, out);
        FAIL() << "no CodecConfigError";
    }
    catch (const CodecConfigError& e)
    {
        EXPECT_EQ(std::string(e.what()).rfind("compression.uplink.mode: \"step\" sends what", 0),
                  0u)
            << e.what();
    }
}

TEST(DgcStepMode, AccumulatesEveryStepAndSendsMinusLrTimesTheTopOfV)
{
    // Two tensors, three steps with clipping on the first: the direction handed back to the
    // trainer is u, v sums the u's, and the payload is -lr * v at the k largest |v|; then u
    // and v are zero there and untouched elsewhere. The same float operations by hand.
    const TensorLayout layout({{"w", {10, 10}}, {"b", {10}}});
    const size_t n = layout.TotalSize();
    auto codec =
        MakeStep({{"ratio", 0.1}, {"momentum", 0.5}, {"clip_norm", 2.0}, {"warmup_epochs", 0}});
    LocalStepState& state = *codec->StepState();
    Rng data(10, 0);
    std::vector<float> u(n, 0.0f);
    std::vector<float> v(n, 0.0f);
    const float lr = 0.25f;
    for (int round = 0; round < 3; ++round)
    {
        state.BeginLocalTraining(layout, lr);
        for (int s = 0; s < 3; ++s)
        {
            std::vector<float> g = RandomVector(n, data, s == 0 ? 3.0 : 0.1);
            const std::vector<float> original = g;
            state.LocalStep(g);
            for (size_t t = 0; t < 2; ++t)
            {
                const size_t begin = layout.Offset(t);
                const size_t size = layout.Tensors()[t].Size();
                const double norm = std::sqrt(
                    internal::SumOfSquares(std::span<const float>(original).subspan(begin, size)));
                const float scale = norm > 2.0 ? float(2.0 / norm) : 1.0f;
                for (size_t i = begin; i < begin + size; ++i)
                {
                    u[i] = 0.5f * u[i] + scale * original[i];
                    v[i] += u[i];
                    ASSERT_EQ(g[i], u[i]) << i;
                }
            }
        }
        state.EndLocalTraining(96, 32);
        Rng rng(10, 1);
        const auto decoded =
            Decode(*codec, layout, Encode(*codec, layout, std::vector<float>(n, 0.0f), rng));
        for (size_t t = 0; t < 2; ++t)
        {
            const size_t begin = layout.Offset(t);
            const size_t size = layout.Tensors()[t].Size();
            std::vector<uint32_t> top;
            internal::SelectTopK(std::span<const float>(v).subspan(begin, size),
                                 DgcCodec::SentCount(0.1, size),
                                 top);
            std::vector<bool> sent(size, false);
            for (const uint32_t i : top)
            {
                sent[i] = true;
            }
            for (size_t i = 0; i < size; ++i)
            {
                const size_t at = begin + i;
                EXPECT_EQ(decoded[at], sent[i] ? -(lr * v[at]) : 0.0f) << at;
                if (sent[i])
                {
                    u[at] = 0.0f;
                    v[at] = 0.0f;
                }
            }
        }
        const auto codecU = AsDgc(*codec).Momentum();
        const auto codecV = AsDgc(*codec).Accumulation();
        EXPECT_EQ(std::vector<float>(codecU.begin(), codecU.end()), u);
        EXPECT_EQ(std::vector<float>(codecV.begin(), codecV.end()), v);
    }
}

TEST(DgcStepMode, WarmsUpByTheClientsEpochs)
{
    // 100 examples held, 50 trained on per round: rounds 1-2 are epoch 1, 3-4 epoch 2, ...;
    // the warm-up of 4 epochs sends 25%, 6.25%, 1.56%, 0.39% of a 4096-element tensor, then
    // the ratio 0.001. BeginRound (a server round) does not move it.
    const TensorLayout layout({{"w", {64, 64}}});
    auto codec = MakeStep({});
    LocalStepState& state = *codec->StepState();
    Rng data(11, 0);
    Rng rng(11, 1);
    const std::vector<size_t> expected = {1024, 1024, 256, 256, 64, 64, 16, 16, 4, 4};
    for (size_t r = 0; r < expected.size(); ++r)
    {
        codec->BeginRound(1);
        state.BeginLocalTraining(layout, 1.0);
        auto g = RandomVector(layout.TotalSize(), data);
        state.LocalStep(g);
        state.EndLocalTraining(50, 100);
        EXPECT_EQ(AsDgc(*codec).Epoch(), r / 2 + 1);
        const auto decoded =
            Decode(*codec, layout, Encode(*codec, layout, std::vector<float>(4096), rng));
        EXPECT_EQ(NonZeros(decoded), expected[r]) << "round " << r + 1;
    }
    // Slower stages: warmup_epochs 8 in 2 stages, with 3-epoch rounds.
    auto slow = MakeStep({{"warmup_epochs", 8}, {"warmup_stages", 2}});
    LocalStepState& slowState = *slow->StepState();
    const std::vector<size_t> slowExpected = {1024, 256, 4, 4}; // epochs 3, 6, 9, 12
    for (size_t r = 0; r < slowExpected.size(); ++r)
    {
        slowState.BeginLocalTraining(layout, 1.0);
        auto g = RandomVector(layout.TotalSize(), data);
        slowState.LocalStep(g);
        slowState.EndLocalTraining(300, 100);
        const auto decoded =
            Decode(*slow, layout, Encode(*slow, layout, std::vector<float>(4096), rng));
        EXPECT_EQ(NonZeros(decoded), slowExpected[r]) << "epoch " << 3 * (r + 1);
    }
}

TEST(DgcStepMode, RejectsTheOtherModesWarmupKey)
{
    auto error = [](const json& spec) {
        try
        {
            MakeCodec(spec, "compression.uplink");
        }
        catch (const CodecConfigError& e)
        {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    EXPECT_EQ(error({{"type", "dgc"}, {"warmup_rounds", 2}}),
              "compression.uplink.warmup_rounds: applies to mode \"round\"; mode \"step\" warms "
              "up by the client's epochs (warmup_epochs)");
    EXPECT_EQ(error({{"type", "dgc"}, {"mode", "round"}, {"warmup_epochs", 2}}),
              "compression.uplink.warmup_epochs: applies to mode \"step\"; mode \"round\" warms "
              "up by server rounds (warmup_rounds)");
    EXPECT_EQ(error({{"type", "dgc"}, {"mode", "epoch"}}),
              "compression.uplink.mode: must be \"step\" or \"round\", got \"epoch\"");
    EXPECT_EQ(error({{"type", "dgc"}, {"warmup_epochs", 3}, {"warmup_stages", 4}}),
              "compression.uplink.warmup_stages: must be an integer in [1, warmup_epochs = 3], "
              "got 4");
    EXPECT_EQ(error({{"type", "dgc"}, {"warmup_epochs", 0}}), "(no error)");
}

} // namespace
} // namespace fedran
