// error_feedback: the payload is the base's, the residual telescopes (sum of decoded updates
// plus the final residual equals the sum of the inputs), and EF rescues a biased compressor.

#include "compression/codec-spec.h"
#include "compression/internal/error-feedback-codec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <vector>

namespace fedran
{
namespace
{

using nlohmann::json;

TensorLayout
TwoTensors()
{
    return TensorLayout({{"w", {8, 16}}, {"b", {16}}});
}

std::vector<float>
RandomVector(size_t n, Rng& rng, double scale, double mean = 0.0)
{
    std::vector<float> x(n);
    for (float& value : x)
    {
        value = static_cast<float>(mean + scale * rng.Normal());
    }
    return x;
}

std::unique_ptr<Codec>
Make(const json& spec)
{
    return MakeCodec(spec, "compression.uplink");
}

const internal::ErrorFeedbackCodec&
AsEf(const Codec& codec)
{
    return dynamic_cast<const internal::ErrorFeedbackCodec&>(codec);
}

/// Runs `steps` encodes of random updates through an error_feedback(beta = 1) codec and checks
/// sum(decoded) + residual == sum(inputs), in double, to float rounding.
void
ExpectTelescoping(const json& base, double mean, double scale)
{
    const TensorLayout layout = TwoTensors();
    const size_t n = layout.TotalSize();
    auto encoder = Make({{"type", "error_feedback"}, {"base", base}});
    auto decoder = Make({{"type", "error_feedback"}, {"base", base}});
    Rng data(7, 0);
    Rng codecRng(7, 1);
    std::vector<double> inputs(n, 0.0);
    std::vector<double> decodedSum(n, 0.0);
    std::vector<float> decoded(n);
    double lostMass = 0.0; // shows the base really is lossy, so the test means something
    constexpr int kSteps = 60;
    for (int step = 0; step < kSteps; ++step)
    {
        const std::vector<float> update = RandomVector(n, data, scale, mean);
        std::vector<uint8_t> payload;
        encoder->Encode(layout, update, codecRng, payload);
        decoder->Decode(layout, payload, decoded);
        for (size_t i = 0; i < n; ++i)
        {
            inputs[i] += update[i];
            decodedSum[i] += decoded[i];
        }
        for (const float e : AsEf(*encoder).Residual())
        {
            lostMass += std::abs(e);
        }
    }
    EXPECT_GT(lostMass / (kSteps * n), 1e-3 * scale) << "the base should lose information";
    const auto residual = AsEf(*encoder).Residual();
    ASSERT_EQ(residual.size(), n);
    // Each step rounds p = g + e and e = p - d once each, at the magnitude of p.
    const double tolerance = kSteps * 4.0 * 6e-8 * (std::abs(mean) + 6.0 * scale);
    for (size_t i = 0; i < n; ++i)
    {
        EXPECT_NEAR(decodedSum[i] + residual[i], inputs[i], tolerance) << "element " << i;
    }
}

TEST(ErrorFeedbackCodec, ResidualTelescopesOverClippedBase)
{
    // Clamping at 0.5 drops most of N(0.3, 1): a strongly biased base.
    ExpectTelescoping({{"type", "clipped"}, {"clip_value", 0.5}, {"base", {{"type", "none"}}}},
                      0.3,
                      1.0);
}

TEST(ErrorFeedbackCodec, ResidualTelescopesOverFp16)
{
    // Around 1000, binary16 has a spacing of 0.5: rounding loses ~0.1 per element.
    ExpectTelescoping({{"type", "fp16"}}, 1000.0, 0.3);
}

TEST(ErrorFeedbackCodec, ResidualTelescopesOverTopK)
{
    ExpectTelescoping({{"type", "top_k"}, {"ratio", 0.05}}, 0.0, 1.0);
}

TEST(ErrorFeedbackCodec, ResidualTelescopesOverStochasticQuantization)
{
    // Stochastic rounding: only the client's decoding of its own payload (not a re-encoding)
    // gives the residual that matches what the server sees.
    ExpectTelescoping({{"type", "quantization"}, {"bits", 2}}, 0.0, 1.0);
    ExpectTelescoping({{"type", "quantization"}, {"bits", 2}, {"stochastic", false}}, 0.0, 1.0);
}

/// Federated gradient descent on f(x) = 1/2 ||x - b||^2, split over 4 clients whose optima
/// b + h_i disagree strongly (sum h_i = 0) on 20 of 200 coordinates. Every client sends
/// lr * grad f_i through `spec` (one codec per client); the server applies the mean.
/// Returns f(x_T) / f(x_0).
double
FederatedQuadratic(const json& spec)
{
    constexpr size_t kDim = 200;
    constexpr size_t kClients = 4;
    constexpr int kSteps = 1500;
    constexpr float kLr = 0.02f;
    const TensorLayout layout({{"x", {kDim}}});
    Rng data(11, 0);
    std::vector<double> b(kDim);
    for (double& value : b)
    {
        value = data.Normal();
    }
    std::vector<std::vector<double>> optimum(kClients, b);
    for (size_t j = 0; j < 20; ++j)
    {
        double shift[kClients];
        double mean = 0.0;
        for (double& value : shift)
        {
            value = 10.0 * data.Normal();
            mean += value / kClients;
        }
        for (size_t i = 0; i < kClients; ++i)
        {
            optimum[i][j] += shift[i] - mean;
        }
    }
    auto loss = [&](const std::vector<double>& x) {
        double sum = 0.0;
        for (size_t j = 0; j < kDim; ++j)
        {
            sum += 0.5 * (x[j] - b[j]) * (x[j] - b[j]);
        }
        return sum;
    };

    std::vector<std::unique_ptr<Codec>> codecs;
    for (size_t i = 0; i < kClients; ++i)
    {
        codecs.push_back(Make(spec));
    }
    std::vector<double> x(kDim, 0.0);
    const double initial = loss(x);
    Rng rng(11, 1);
    std::vector<float> step(kDim);
    std::vector<float> decoded(kDim);
    for (int t = 0; t < kSteps; ++t)
    {
        std::vector<double> mean(kDim, 0.0);
        for (size_t i = 0; i < kClients; ++i)
        {
            for (size_t j = 0; j < kDim; ++j)
            {
                step[j] = kLr * static_cast<float>(x[j] - optimum[i][j]);
            }
            std::vector<uint8_t> payload;
            codecs[i]->Encode(layout, step, rng, payload);
            codecs[i]->Decode(layout, payload, decoded);
            for (size_t j = 0; j < kDim; ++j)
            {
                mean[j] += decoded[j] / kClients;
            }
        }
        for (size_t j = 0; j < kDim; ++j)
        {
            x[j] -= mean[j];
        }
    }
    return loss(x) / initial;
}

TEST(ErrorFeedbackCodec, RescuesTopKOnAFederatedQuadratic)
{
    // Plain top-k keeps sending the coordinates where clients disagree (large local gradients
    // that cancel in the mean) and never moves the others: it stalls above its start. Error
    // feedback accumulates the small consistent gradients until they are sent.
    const json topK = {{"type", "top_k"}, {"ratio", 0.01}};
    const double plain = FederatedQuadratic(topK);
    const double withEf = FederatedQuadratic({{"type", "error_feedback"}, {"base", topK}});
    const double exact = FederatedQuadratic({{"type", "none"}});
    EXPECT_GT(plain, 0.5);
    EXPECT_LT(withEf, 0.1);
    EXPECT_LT(exact, 1e-6);
}

TEST(ErrorFeedbackCodec, PayloadIsTheBasePayload)
{
    const TensorLayout layout = TwoTensors();
    Rng data(3, 0);
    const std::vector<float> update = RandomVector(layout.TotalSize(), data, 1.0);
    auto ef = Make({{"type", "error_feedback"}, {"base", {{"type", "fp16"}}}});
    auto fp16 = Make({{"type", "fp16"}});
    Rng rng(1, 1);
    // Encode appends: what was in `out` stays, and EF decodes only its own bytes.
    std::vector<uint8_t> efPayload{0xAA};
    std::vector<uint8_t> basePayload{0xAA};
    ef->Encode(layout, update, rng, efPayload); // residual is still zero: p = update
    fp16->Encode(layout, update, rng, basePayload);
    EXPECT_EQ(efPayload, basePayload);
    EXPECT_EQ(efPayload.size(), 1 + 8 + 2 * layout.TotalSize());

    std::vector<float> viaEf(layout.TotalSize());
    std::vector<float> viaBase(layout.TotalSize());
    const std::span<const uint8_t> body(efPayload.data() + 1, efPayload.size() - 1);
    ef->Decode(layout, body, viaEf);
    fp16->Decode(layout, body, viaBase);
    EXPECT_EQ(viaEf, viaBase);
    EXPECT_THROW(ef->Decode(layout, body.first(body.size() - 1), viaEf), DecodeError);
}

TEST(ErrorFeedbackCodec, CarriesWhatTheBaseDropped)
{
    const TensorLayout layout({{"x", {2}}});
    auto ef =
        Make({{"type", "error_feedback"},
              {"base", {{"type", "clipped"}, {"clip_value", 0.5}, {"base", {{"type", "none"}}}}}});
    Rng rng(1, 1);
    std::vector<float> decoded(2);
    const std::vector<std::vector<float>> updates = {{1.25f, -0.25f}, {0.0f, 0.0f}, {0.0f, 0.0f}};
    const std::vector<std::vector<float>> expected = {{0.5f, -0.25f}, {0.5f, 0.0f}, {0.25f, 0.0f}};
    for (size_t step = 0; step < updates.size(); ++step)
    {
        std::vector<uint8_t> payload;
        ef->Encode(layout, updates[step], rng, payload);
        ef->Decode(layout, payload, decoded);
        EXPECT_EQ(decoded, expected[step]) << "step " << step;
    }
    EXPECT_EQ(std::vector<float>(AsEf(*ef).Residual().begin(), AsEf(*ef).Residual().end()),
              (std::vector<float>{0.0f, 0.0f}));
}

TEST(ErrorFeedbackCodec, CompensationWeighsTheResidual)
{
    const TensorLayout layout({{"x", {1}}});
    const json clip = {{"type", "clipped"}, {"clip_value", 1.0}, {"base", {{"type", "none"}}}};
    auto half = Make({{"type", "error_feedback"}, {"error_compensation", 0.5}, {"base", clip}});
    auto off = Make({{"type", "error_feedback"}, {"error_compensation", 0}, {"base", clip}});
    Rng rng(1, 1);
    std::vector<float> decoded(1);
    std::vector<uint8_t> payload;
    // beta = 0.5: p = 3 -> sends 1, e = 2; then p = 0.5 + 0.5 * 2 = 1.5 -> sends 1, e = 0.5.
    half->Encode(layout, std::vector<float>{3.0f}, rng, payload);
    payload.clear();
    half->Encode(layout, std::vector<float>{0.5f}, rng, payload);
    EXPECT_EQ(AsEf(*half).Residual()[0], 0.5f);
    // beta = 0: the residual is computed but never used.
    off->Encode(layout, std::vector<float>{3.0f}, rng, payload);
    payload.clear();
    off->Encode(layout, std::vector<float>{0.25f}, rng, payload);
    off->Decode(layout, payload, decoded);
    EXPECT_EQ(decoded[0], 0.25f);
}

TEST(ErrorFeedbackCodec, WrapsItselfAndForwardsTheBase)
{
    const TensorLayout layout = TwoTensors();
    auto nested = Make({{"type", "error_feedback"},
                        {"base", {{"type", "error_feedback"}, {"base", {{"type", "none"}}}}}});
    EXPECT_EQ(nested->Name(), "error_feedback");
    EXPECT_EQ(nested->Id(), 30);
    Rng data(5, 0);
    const std::vector<float> update = RandomVector(layout.TotalSize(), data, 1.0);
    Rng rng(1, 1);
    std::vector<uint8_t> payload;
    nested->Encode(layout, update, rng, payload);
    std::vector<float> decoded(layout.TotalSize());
    nested->Decode(layout, payload, decoded);
    EXPECT_EQ(decoded, update); // a lossless base leaves nothing behind at any level
    EXPECT_NE(nested->MakeAggregator(), nullptr);
    nested->BeginRound(3); // forwarded down to none, which ignores it
}

std::string
ConfigError(const json& spec)
{
    try
    {
        MakeCodec(spec, "compression.uplink");
    }
    catch (const CodecConfigError& e)
    {
        return e.what();
    }
    return "(no error)";
}

TEST(ErrorFeedbackCodec, RejectsBadParameters)
{
    const json none = {{"type", "none"}};
    EXPECT_EQ(ConfigError({{"type", "error_feedback"}}),
              "compression.uplink.base: missing: a wrapper needs the codec spec it wraps");
    EXPECT_EQ(
        ConfigError({{"type", "error_feedback"}, {"base", none}, {"error_compensation", 1.5}}),
        "compression.uplink.error_compensation: must be in [0, 1], got 1.5");
    EXPECT_EQ(
        ConfigError({{"type", "error_feedback"}, {"base", none}, {"error_compensation", true}}),
        "compression.uplink.error_compensation: must be a number, got boolean");
    EXPECT_EQ(ConfigError({{"type", "error_feedback"}, {"base", {{"type", "fp16"}, {"x", 1}}}}),
              "compression.uplink.base.x: unknown key for codec 'fp16'");
    EXPECT_EQ(ConfigError({{"type", "error_feedback"},
                           {"base", {{"type", "error_feedback"}, {"base", {{"type", "zip"}}}}}})
                  .rfind("compression.uplink.base.base.type: unknown codec 'zip'", 0),
              0u);
    EXPECT_EQ(ConfigError({{"type", "error_feedback"}, {"base", "none"}})
                  .rfind("compression.uplink.base: codec spec must be an object", 0),
              0u);
    EXPECT_EQ(ConfigError({{"type", "error_feedback"}, {"base", none}, {"beta", 1}}),
              "compression.uplink.beta: unknown key for codec 'error_feedback'");
}

} // namespace
} // namespace fedran
