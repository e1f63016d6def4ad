// power_sgd as a codec: the two-exchange round between clients' encoders and the server's
// RoundExchange, its payload sizes, warm start, error feedback and the parsers of all four
// message kinds.

#include "compression/codec-spec.h"
#include "compression/internal/power-sgd.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <numeric>

namespace fedran
{
namespace
{

using internal::ConstMatrixView;
using internal::MutableMatrixView;

constexpr size_t kHeader = 12; // payload header + kind, rank, mode, zero

nlohmann::json
Spec(uint32_t rank, bool warmStart = true, bool errorFeedback = false)
{
    return {{"type", "power_sgd"},
            {"rank", rank},
            {"warm_start", warmStart},
            {"error_feedback", errorFeedback}};
}

std::vector<float>
Gaussian(size_t n, uint64_t seed, double scale = 1.0)
{
    Rng rng(seed, 9);
    std::vector<float> v(n);
    for (auto& x : v)
    {
        x = static_cast<float>(scale * rng.Normal());
    }
    return v;
}

/// A server exchange and one encoder per client, with the bytes of each message recorded.
struct Round
{
    std::vector<uint8_t> state;
    std::vector<std::vector<uint8_t>> firsts;
    std::vector<uint8_t> message;
    std::vector<std::vector<uint8_t>> replies;
    std::vector<float> result;
};

class Federation
{
  public:
    Federation(const nlohmann::json& spec, TensorLayout layout, size_t clients)
        : m_layout(std::move(layout))
    {
        auto server = MakeCodec(spec, "uplink");
        m_exchange = server->MakeExchange(m_layout, 77);
        for (size_t i = 0; i < clients; ++i)
        {
            m_clients.push_back(MakeCodec(spec, "uplink"));
        }
    }

    /// One round; clients with `replying[i]` false send their first payload but never get to
    /// reply (their round ended in between).
    Round Run(const std::vector<std::vector<float>>& updates,
              const std::vector<double>& weights,
              const std::vector<bool>& replying = {})
    {
        Round round;
        ++m_round;
        m_exchange->BeginRound(m_round, round.state);
        Rng rng(1, m_round);
        for (size_t i = 0; i < updates.size(); ++i)
        {
            m_clients[i]->BeginRound(m_round);
            if (!round.state.empty())
            {
                m_clients[i]->AcceptRoundState(m_layout, round.state);
            }
            round.firsts.emplace_back();
            m_clients[i]->Encode(m_layout, updates[i], rng, round.firsts.back());
            m_exchange->AddFirst(round.firsts.back(), weights[i]);
        }
        if (m_exchange->NeedsReplies())
        {
            m_exchange->CloseFirstPhase(round.message);
        }
        for (size_t i = 0; i < updates.size() && m_exchange->NeedsReplies(); ++i)
        {
            if (!replying.empty() && !replying[i])
            {
                continue;
            }
            round.replies.emplace_back();
            m_clients[i]->EncodeReply(m_layout, round.message, round.replies.back());
            m_exchange->AddReply(round.replies.back(), weights[i]);
        }
        round.result.resize(m_layout.TotalSize());
        m_exchange->Result(round.result);
        return round;
    }

    RoundExchange& Exchange()
    {
        return *m_exchange;
    }

    Codec& Client(size_t i)
    {
        return *m_clients[i];
    }

  private:
    TensorLayout m_layout;
    std::unique_ptr<RoundExchange> m_exchange;
    std::vector<std::unique_ptr<Codec>> m_clients;
    uint32_t m_round = 0;
};

/// A 12 x 40 matrix and a bias: the matrix is compressed at ranks 1..4 ((12 + 40) r 2 < 480).
TensorLayout
MatrixAndBias()
{
    return TensorLayout({{"w", {12, 40}}, {"b", {12}}});
}

double
RelativeError(const std::vector<float>& a, const std::vector<float>& b)
{
    double err = 0.0;
    double norm = 0.0;
    for (size_t i = 0; i < a.size(); ++i)
    {
        err += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        norm += double(b[i]) * b[i];
    }
    return std::sqrt(err / norm);
}

std::vector<float>
WeightedMean(const std::vector<std::vector<float>>& updates, const std::vector<double>& weights)
{
    std::vector<float> mean(updates[0].size(), 0.0f);
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    for (size_t i = 0; i < mean.size(); ++i)
    {
        double sum = 0.0;
        for (size_t k = 0; k < updates.size(); ++k)
        {
            sum += weights[k] * updates[k][i];
        }
        mean[i] = static_cast<float>(sum / total);
    }
    return mean;
}

TEST(PowerSgdCodec, IsRegisteredAsATwoExchangeCodec)
{
    auto codec = MakeCodec(Spec(2), "uplink");
    EXPECT_EQ(codec->Name(), "power_sgd");
    EXPECT_TRUE(codec->HasRoundExchange());
    EXPECT_NE(codec->MakeExchange(MatrixAndBias(), 1), nullptr);
    EXPECT_FALSE(MakeCodec({{"type", "none"}}, "uplink")->HasRoundExchange());
    EXPECT_EQ(MakeCodec({{"type", "none"}}, "uplink")->MakeExchange(MatrixAndBias(), 1), nullptr);
    // A payload alone says nothing: decoding one is an error, never garbage.
    std::vector<float> out(MatrixAndBias().TotalSize());
    EXPECT_THROW(codec->Decode(MatrixAndBias(), std::vector<uint8_t>(40), out), DecodeError);
}

TEST(PowerSgdCodec, RecoversUpdatesThatShareALowRankColumnSpace)
{
    // M_k = U V_k^T with one U (12 x 2) for every client: the weighted mean has rank 2, and one
    // round at rank 2 recovers it exactly (up to float rounding); the bias is sent dense.
    const TensorLayout layout = MatrixAndBias();
    const std::vector<float> u = Gaussian(12 * 2, 1);
    std::vector<std::vector<float>> updates;
    for (uint64_t k = 0; k < 3; ++k)
    {
        const std::vector<float> v = Gaussian(40 * 2, 10 + k);
        std::vector<float> update(layout.TotalSize());
        internal::Reconstruct(ConstMatrixView(u, 12, 2),
                              ConstMatrixView(v, 40, 2),
                              MutableMatrixView(std::span<float>(update).first(480), 12, 40));
        const std::vector<float> bias = Gaussian(12, 20 + k);
        std::copy(bias.begin(), bias.end(), update.begin() + 480);
        updates.push_back(update);
    }
    const std::vector<double> weights = {100, 250, 40};
    Federation federation(Spec(2), layout, 3);
    const Round round = federation.Run(updates, weights);
    EXPECT_EQ(federation.Exchange().Count(), 3u);
    EXPECT_LT(RelativeError(round.result, WeightedMean(updates, weights)), 1e-5);
}

TEST(PowerSgdCodec, ResultIsTheMeanProjectedOntoTheOrthonormalPHat)
{
    const TensorLayout layout = MatrixAndBias();
    const std::vector<std::vector<float>> updates = {Gaussian(492, 1), Gaussian(492, 2)};
    const std::vector<double> weights = {3, 1};
    Federation federation(Spec(3), layout, 2);
    const Round round = federation.Run(updates, weights);

    // P_hat from the message: 12 x 3, orthonormal columns.
    ASSERT_EQ(round.message.size(), kHeader + 4 * 12 * 3);
    std::vector<float> pHat(36);
    std::memcpy(pHat.data(), round.message.data() + kHeader, 4 * 36);
    for (int a = 0; a < 3; ++a)
    {
        for (int b = 0; b < 3; ++b)
        {
            double dot = 0.0;
            for (int row = 0; row < 12; ++row)
            {
                dot += double(pHat[row * 3 + a]) * pHat[row * 3 + b];
            }
            EXPECT_NEAR(dot, a == b ? 1.0 : 0.0, 1e-5);
        }
    }
    // Expected: P_hat P_hat^T M_mean for the matrix, the exact mean for the bias.
    const std::vector<float> mean = WeightedMean(updates, weights);
    std::vector<float> q(40 * 3);
    internal::ComputeQ(ConstMatrixView(std::span<const float>(mean).first(480), 12, 40),
                       ConstMatrixView(pHat, 12, 3),
                       MutableMatrixView(q, 40, 3));
    std::vector<float> expected = mean;
    internal::Reconstruct(ConstMatrixView(pHat, 12, 3),
                          ConstMatrixView(q, 40, 3),
                          MutableMatrixView(std::span<float>(expected).first(480), 12, 40));
    for (size_t i = 0; i < expected.size(); ++i)
    {
        EXPECT_NEAR(round.result[i], expected[i], 1e-4) << i;
    }
}

TEST(PowerSgdCodec, PayloadSizesFollowTheRank)
{
    // A conv kernel (8, 3, 5, 5) is an 8 x 75 matrix; a bias and a small 3 x 3 matrix (not
    // worth compressing at rank 2) travel dense.
    const TensorLayout layout({{"conv", {8, 3, 5, 5}}, {"bias", {8}}, {"small", {3, 3}}});
    const uint32_t r = 2;
    Federation federation(Spec(r), layout, 1);
    const Round first = federation.Run({Gaussian(layout.TotalSize(), 3)}, {10});
    EXPECT_EQ(first.state.size(), kHeader + 8u);                       // a seed
    EXPECT_EQ(first.firsts[0].size(), kHeader + 4u * (8 * r + 8 + 9)); // P, bias, small
    EXPECT_EQ(first.message.size(), kHeader + 4u * 8 * r);             // P_hat
    EXPECT_EQ(first.replies[0].size(), kHeader + 4u * 75 * r);         // Q
    // Warm start: from the second round the state carries last round's averaged Q.
    const Round second = federation.Run({Gaussian(layout.TotalSize(), 4)}, {10});
    EXPECT_EQ(second.state.size(), kHeader + 4u * 75 * r);

    Federation cold(Spec(r, /*warmStart=*/false), layout, 1);
    cold.Run({Gaussian(layout.TotalSize(), 3)}, {10});
    EXPECT_EQ(cold.Run({Gaussian(layout.TotalSize(), 4)}, {10}).state.size(), kHeader + 8u);
}

TEST(PowerSgdCodec, WarmStartConvergesToTheBestRankRApproximation)
{
    // M = U diag(s) V^T with known singular values: the best rank-2 error is
    // sqrt(sum of the other s^2) / |M|. Warm start turns rounds into power iterations.
    const size_t n = 12;
    const size_t m = 40;
    std::vector<float> u = Gaussian(n * n, 5);
    std::vector<float> v = Gaussian(m * n, 6);
    internal::Orthonormalize(MutableMatrixView(u, n, n));
    internal::Orthonormalize(MutableMatrixView(v, m, n));
    std::vector<float> s(n);
    double tail = 0.0;
    double total = 0.0;
    for (size_t i = 0; i < n; ++i)
    {
        s[i] = static_cast<float>(i == 0 ? 10.0 : i == 1 ? 6.0 : 1.0 / (1.0 + i));
        total += double(s[i]) * s[i];
        tail += i >= 2 ? double(s[i]) * s[i] : 0.0;
    }
    for (size_t row = 0; row < n; ++row)
    {
        for (size_t col = 0; col < n; ++col)
        {
            u[row * n + col] *= s[col];
        }
    }
    std::vector<float> update(n * m + n, 0.0f);
    internal::Reconstruct(ConstMatrixView(u, n, n),
                          ConstMatrixView(v, m, n),
                          MutableMatrixView(std::span<float>(update).first(n * m), n, m));
    const double best = std::sqrt(tail / total);

    Federation warm(Spec(2, true), MatrixAndBias(), 1);
    Federation cold(Spec(2, false), MatrixAndBias(), 1);
    double warmError = 0.0;
    double coldError = 0.0;
    for (int round = 0; round < 15; ++round)
    {
        warmError = RelativeError(warm.Run({update}, {1}).result, update);
        coldError = RelativeError(cold.Run({update}, {1}).result, update);
    }
    EXPECT_LT(warmError, best * 1.01);
    EXPECT_GE(warmError, best * 0.999);
    EXPECT_GT(coldError, warmError * 1.05); // a fresh random Q each round stays worse
}

TEST(PowerSgdCodec, ErrorFeedbackDeliversEverythingEventually)
{
    // With error feedback, what the projection leaves out is sent in later rounds: after the
    // inputs stop, each round removes the top-2 directions of the residual's 12-dim column
    // space, so 6 rounds of zero updates empty it and the applied sum equals the input sum.
    const TensorLayout layout = MatrixAndBias();
    Federation federation(Spec(2, true, /*errorFeedback=*/true), layout, 1);
    std::vector<double> inputSum(layout.TotalSize(), 0.0);
    std::vector<double> appliedSum(layout.TotalSize(), 0.0);
    const std::vector<float> zero(layout.TotalSize(), 0.0f);
    for (uint64_t t = 0; t < 12; ++t)
    {
        const std::vector<float> input = t < 5 ? Gaussian(layout.TotalSize(), 30 + t) : zero;
        const Round round = federation.Run({input}, {1});
        for (size_t i = 0; i < input.size(); ++i)
        {
            inputSum[i] += input[i];
            appliedSum[i] += round.result[i];
        }
    }
    for (size_t i = 0; i < inputSum.size(); ++i)
    {
        EXPECT_NEAR(appliedSum[i], inputSum[i], 1e-3) << i;
    }
}

TEST(PowerSgdCodec, AnUnansweredRoundKeepsAllOfTheUpdateInTheResidual)
{
    const TensorLayout layout = MatrixAndBias();
    Federation federation(Spec(2, true, true), layout, 1);
    const std::vector<float> input = Gaussian(layout.TotalSize(), 40);
    const Round lost = federation.Run({input}, {1}, {false});
    EXPECT_EQ(federation.Exchange().Count(), 0u);
    for (float x : lost.result)
    {
        ASSERT_EQ(x, 0.0f); // nothing combined without a reply
    }
    // The whole update (bias included) is still owed, and arrives over the next rounds.
    const std::vector<float> zero(layout.TotalSize(), 0.0f);
    std::vector<double> applied(layout.TotalSize(), 0.0);
    for (int t = 0; t < 8; ++t)
    {
        const Round round = federation.Run({zero}, {1});
        for (size_t i = 0; i < applied.size(); ++i)
        {
            applied[i] += round.result[i];
        }
    }
    for (size_t i = 0; i < applied.size(); ++i)
    {
        EXPECT_NEAR(applied[i], input[i], 1e-3) << i;
    }
}

TEST(PowerSgdCodec, RoundsBeforeStartRoundAreDenseWithOneExchange)
{
    const TensorLayout layout = MatrixAndBias();
    nlohmann::json spec = Spec(2, true, true);
    spec["start_round"] = 3;
    Federation federation(spec, layout, 2);
    const std::vector<std::vector<float>> updates = {Gaussian(492, 1), Gaussian(492, 2)};
    for (uint32_t round = 1; round <= 3; ++round)
    {
        const Round r = federation.Run(updates, {1, 3});
        if (round < 3)
        {
            EXPECT_FALSE(federation.Exchange().NeedsReplies());
            EXPECT_TRUE(r.state.empty());
            EXPECT_EQ(r.firsts[0].size(), kHeader + 4u * 492);
            EXPECT_TRUE(r.replies.empty());
            EXPECT_EQ(federation.Exchange().Count(), 2u);
            EXPECT_LT(RelativeError(r.result, WeightedMean(updates, {1, 3})), 1e-6);
        }
        else
        {
            EXPECT_TRUE(federation.Exchange().NeedsReplies());
            EXPECT_EQ(r.state.size(), kHeader + 8u); // the first compressed round: a seed
            EXPECT_EQ(r.firsts[0].size(), kHeader + 4u * (12 * 2 + 12));
            EXPECT_EQ(federation.Exchange().Count(), 2u);
        }
    }
    // A first payload made for a dense round is refused in a compressed one, and vice versa.
    std::vector<uint8_t> state;
    auto exchange = MakeCodec(spec, "u")->MakeExchange(layout, 1);
    exchange->BeginRound(3, state);
    auto client = MakeCodec(spec, "u");
    client->BeginRound(1);
    std::vector<uint8_t> dense;
    Rng rng;
    client->Encode(layout, updates[0], rng, dense);
    EXPECT_THROW(exchange->AddFirst(dense, 1.0), DecodeError);
}

TEST(PowerSgdCodec, RejectsBadConfigurationsNamingTheKey)
{
    auto error = [](const nlohmann::json& spec) {
        try
        {
            MakeCodec(spec, "compression.uplink");
        }
        catch (const CodecConfigError& e)
        {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(error({{"type", "power_sgd"}, {"rank", 0}}).find("compression.uplink.rank"),
              std::string::npos);
    EXPECT_NE(error({{"type", "power_sgd"}, {"rank", 65}}).find("rank"), std::string::npos);
    EXPECT_NE(
        error({{"type", "power_sgd"}, {"min_compression_rate", 0.5}}).find("min_compression_rate"),
        std::string::npos);
    EXPECT_NE(error({{"type", "power_sgd"}, {"warm_start", "yes"}}).find("warm_start"),
              std::string::npos);
    EXPECT_NE(error({{"type", "power_sgd"}, {"ranks", 2}}).find("ranks"), std::string::npos);
    EXPECT_NE(error({{"type", "power_sgd"}, {"start_round", 0}}).find("start_round"),
              std::string::npos);
    EXPECT_NE(error({{"type", "error_feedback"}, {"base", Spec(2)}}).find("uplink.base"),
              std::string::npos);
    // Clipping is local to the client: it wraps a two-exchange codec transparently.
    auto clipped = MakeCodec({{"type", "clipped"}, {"clip_value", 0.5}, {"base", Spec(1)}}, "u");
    EXPECT_TRUE(clipped->HasRoundExchange());
}

TEST(PowerSgdCodec, ClippedWrapperRunsTheExchange)
{
    const TensorLayout layout = MatrixAndBias();
    const nlohmann::json spec = {{"type", "clipped"}, {"clip_value", 0.1}, {"base", Spec(2)}};
    Federation federation(spec, layout, 2);
    const Round round = federation.Run({Gaussian(492, 1), Gaussian(492, 2)}, {1, 1});
    EXPECT_EQ(federation.Exchange().Count(), 2u);
    // The bias travels dense, so it is exactly the mean of the clipped values.
    for (size_t i = 480; i < 492; ++i)
    {
        EXPECT_LE(std::abs(round.result[i]), 0.1f + 1e-6f);
    }
}

/// Every message kind: each truncation, a trailing byte, another model and a changed kind or
/// rank are DecodeErrors naming an offset inside the payload, and leave the state usable.
TEST(PowerSgdCodec, ParsersRejectMalformedMessages)
{
    const TensorLayout layout = MatrixAndBias();
    const TensorLayout other({{"w", {12, 40}}, {"c", {12}}});
    Federation federation(Spec(2), layout, 1);
    const Round good = federation.Run({Gaussian(492, 1)}, {1});

    auto expectRejected = [](const std::vector<uint8_t>& payload, auto parse) {
        for (size_t length = 0; length < payload.size(); ++length)
        {
            const std::vector<uint8_t> prefix(payload.begin(), payload.begin() + length);
            try
            {
                parse(prefix);
                ADD_FAILURE() << "accepted a payload cut to " << length << " bytes";
            }
            catch (const DecodeError& e)
            {
                EXPECT_LE(e.Offset(), length);
            }
        }
        std::vector<uint8_t> longer = payload;
        longer.push_back(0);
        EXPECT_THROW(parse(longer), DecodeError);
        for (size_t at : {8u, 9u, 11u}) // kind, rank, reserved
        {
            std::vector<uint8_t> changed = payload;
            changed[at] ^= 0x40;
            try
            {
                parse(changed);
                ADD_FAILURE() << "accepted a change at byte " << at;
            }
            catch (const DecodeError& e)
            {
                EXPECT_EQ(e.Offset(), at);
            }
        }
    };

    auto client = MakeCodec(Spec(2), "u");
    expectRejected(good.state,
                   [&](const std::vector<uint8_t>& p) { client->AcceptRoundState(layout, p); });
    EXPECT_THROW(client->AcceptRoundState(other, good.state), DecodeError);
    std::vector<uint8_t> badMode = good.state;
    badMode[10] = 7;
    EXPECT_THROW(client->AcceptRoundState(layout, badMode), DecodeError);

    auto exchange = client->MakeExchange(layout, 5);
    std::vector<uint8_t> state;
    exchange->BeginRound(1, state);
    expectRejected(good.firsts[0],
                   [&](const std::vector<uint8_t>& p) { exchange->AddFirst(p, 1.0); });
    client->AcceptRoundState(layout, state);
    std::vector<uint8_t> first;
    Rng rng;
    client->Encode(layout, Gaussian(492, 2), rng, first);
    exchange->AddFirst(first, 1.0); // still accepts a good one after all the bad ones
    std::vector<uint8_t> message;
    exchange->CloseFirstPhase(message);
    EXPECT_THROW(exchange->AddFirst(first, 1.0), std::logic_error);

    expectRejected(message, [&](const std::vector<uint8_t>& p) {
        std::vector<uint8_t> out;
        client->EncodeReply(layout, p, out);
    });
    expectRejected(good.replies[0],
                   [&](const std::vector<uint8_t>& p) { exchange->AddReply(p, 1.0); });
    EXPECT_EQ(exchange->Count(), 0u);
    std::vector<uint8_t> reply;
    client->EncodeReply(layout, message, reply);
    exchange->AddReply(reply, 1.0);
    EXPECT_EQ(exchange->Count(), 1u);
    // A second reply to the same update has nothing left to answer.
    std::vector<uint8_t> again;
    EXPECT_THROW(client->EncodeReply(layout, message, again), DecodeError);
}

TEST(PowerSgdCodec, EncodeNeedsTheRoundState)
{
    auto client = MakeCodec(Spec(2), "u");
    Rng rng;
    std::vector<uint8_t> out;
    EXPECT_THROW(client->Encode(MatrixAndBias(), Gaussian(492, 1), rng, out), std::logic_error);
    EXPECT_THROW(client->Encode(MatrixAndBias(), std::vector<float>(3), rng, out),
                 std::invalid_argument);
}

} // namespace
} // namespace fedran
