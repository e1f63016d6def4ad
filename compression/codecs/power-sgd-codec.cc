// "power_sgd" (Vogels, Karimireddy, Jaggi, NeurIPS'19) between FL clients and a server, in
// two exchanges per round.
//
// Every tensor of two or more dimensions is viewed as an n x m matrix M (a conv kernel
// (out, in, kh, kw) as out x in*kh*kw) and compressed to rank r when the factors are at least
// min_compression_rate times smaller than M (WorthCompressing); the others (biases, small
// matrices) travel dense in the first payload. Per round, with w_i a client's training examples:
//
//   server -> client  state    the Q (m x r per matrix) all clients multiply by: last round's
//                              averaged Q (warm_start), or a seed each client draws the same
//                              Gaussian Q from (first round, or without warm start)
//   client -> server  first    the dense tensors, then P_i = M_i Q per matrix
//   server -> client  message  P_hat = orthonormalize(sum_i w_i P_i) per matrix
//   client -> server  reply    Q_i = M_i^T P_hat per matrix
//   server            result   dense tensors: sum w_i x_i / sum w_i over the first payloads;
//                              matrices: P_hat (sum w_i Q_i / sum w_i)^T over the replies, i.e.
//                              the weighted mean update projected onto span(P_hat)
//
// The sum of P_i is linear in the updates, so the server orthonormalises the P of the mean
// update, as PyTorch's hook does after its all-reduce. With error_feedback (default, "usually
// crucial" per PyTorch) the client compresses M = update + e and keeps e = M - P_hat Q_i^T, the
// part of its own update the projection left out; if the round ends before the server's message
// comes, nothing of M was applied and e = M.
//
// Rounds before start_round are a dense warm-up (PyTorch's start_powerSGD_iter): every tensor
// travels in the first payload and there is no second exchange.
//
// Payload layout (little-endian), after the 8-byte payload header:
//   8   kind  u8   0 state, 1 first, 2 message, 3 reply
//   9   rank  u8
//   10  mode  u8   state: 0 = Q drawn from a seed, 1 = Q as floats; first: 0, or 1 in a
//                  dense warm-up round (before start_round: no state, no second exchange,
//                  every tensor dense); 0 otherwise
//   11  zero  u8
//   12  body  state mode 0: seed u64; mode 1: Q, m*r f32 per matrix (row-major)
//             first: per tensor in layout order, d f32 (dense) or P_i, n*r f32 (matrix)
//             message: P_hat, n*r f32 per matrix; reply: Q_i, m*r f32 per matrix

#include "compression/cost-model.h"
#include "compression/internal/byte-io.h"
#include "compression/internal/codec-params.h"
#include "compression/internal/codecs.h"
#include "compression/internal/payload-header.h"
#include "compression/internal/power-sgd-payload.h"

#include <algorithm>
#include <stdexcept>

namespace fedran::internal
{

namespace
{

using namespace power_sgd;

class PowerSgdCodec final : public RegisteredCodec
{
  public:
    PowerSgdCodec(const CodecArgs& args, const PowerSgdParams& params)
        : RegisteredCodec(args)
        , m_params(params)
    {
    }

    bool HasRoundExchange() const override
    {
        return true;
    }

    std::unique_ptr<RoundExchange> MakeExchange(const TensorLayout& layout,
                                                uint64_t seed) const override
    {
        return power_sgd::MakeExchange(layout, m_params, seed);
    }

    // Its matrix products are elements x rank multiply-adds on both sides of the exchange.
    double EncodeSeconds(const CostProfile& profile,
                         const TensorLayout& layout,
                         std::span<const uint8_t> payload) const override
    {
        return profile.Codec(Name()).encode.Seconds(Work(layout, payload));
    }

    double DecodeSeconds(const CostProfile& profile,
                         const TensorLayout& layout,
                         std::span<const uint8_t> payload) const override
    {
        return profile.Codec(Name()).decode.Seconds(Work(layout, payload));
    }

    double ReplySeconds(const CostProfile& profile,
                        const TensorLayout& layout,
                        std::span<const uint8_t> reply) const override
    {
        return profile.Codec(Name()).reply.Seconds(Work(layout, reply));
    }

    double CloseSeconds(const CostProfile& profile, const TensorLayout& layout) const override
    {
        return profile.Codec(Name()).close.Seconds(Work(layout, {}));
    }

    void BeginRound(uint32_t round) override
    {
        m_round = round;
    }

    void AcceptRoundState(const TensorLayout& layout, std::span<const uint8_t> state) override
    {
        const Plan plan(layout, m_params, m_round);
        ByteReader reader(state);
        const size_t modeAt = kPayloadHeaderSize + 2;
        const uint8_t mode = ReadHeader(layout, reader, Kind::State, m_params.rank);
        if (mode == static_cast<uint8_t>(StateMode::Floats))
        {
            ReadBody(reader, plan.qFloats, m_q);
        }
        else if (mode == static_cast<uint8_t>(StateMode::Seed))
        {
            const uint64_t seed = reader.ReadU64();
            reader.ExpectEnd();
            m_q.resize(plan.qFloats);
            for (size_t j = 0; j < plan.matrices.size(); ++j)
            {
                Rng rng(seed, j);
                const Plan::Matrix& mx = plan.matrices[j];
                for (uint64_t i = 0; i < mx.m * m_params.rank; ++i)
                {
                    m_q[mx.qOffset + i] = static_cast<float>(rng.Normal());
                }
            }
        }
        else
        {
            throw DecodeError("power_sgd state mode " + std::to_string(mode) + " is unknown",
                              modeAt);
        }
        m_haveQ = true;
    }

    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& /* rng */,
                std::vector<uint8_t>& out) override
    {
        CheckUpdateSize(layout, update.size(), Name());
        const Plan plan(layout, m_params, m_round);
        if (!m_haveQ && !plan.matrices.empty())
        {
            throw std::logic_error("power_sgd: Encode needs the round's state first");
        }
        if (m_awaitingReply && m_params.errorFeedback)
        {
            m_residual = m_m; // the last round ended before its reply: none of M was applied
        }
        m_m.assign(update.begin(), update.end());
        if (m_params.errorFeedback && m_residual.size() == m_m.size())
        {
            for (size_t i = 0; i < m_m.size(); ++i)
            {
                m_m[i] += m_residual[i];
            }
        }

        ByteWriter writer(out);
        writer.Reserve(12 + 4 * plan.firstFloats);
        WriteHeader(layout, writer, Kind::First, m_params.rank, StateMode{plan.FirstMode()});
        std::vector<float> p;
        size_t matrix = 0;
        for (size_t t = 0; t < layout.TensorCount(); ++t)
        {
            const uint64_t d = layout.Tensors()[t].Size();
            const std::span<const float> x(m_m.data() + layout.Offset(t), d);
            if (!plan.compressed[t])
            {
                writer.WriteF32Array(x);
                continue;
            }
            const Plan::Matrix& mx = plan.matrices[matrix++];
            p.resize(mx.n * m_params.rank);
            ComputeP(ConstMatrixView(x, mx.n, mx.m),
                     ConstSlice(m_q, mx.qOffset, mx.m, m_params.rank),
                     MutableMatrixView(p, mx.n, m_params.rank));
            writer.WriteF32Array(p);
        }
        m_haveQ = false; // each round brings its own state
        m_awaitingReply = !plan.matrices.empty();
        if (!m_awaitingReply && m_params.errorFeedback)
        {
            m_residual.assign(m_m.size(), 0.0f); // a dense round sent all of M
        }
    }

    void EncodeReply(const TensorLayout& layout,
                     std::span<const uint8_t> message,
                     std::vector<uint8_t>& out) override
    {
        if (!m_awaitingReply || m_m.size() != layout.TotalSize())
        {
            throw DecodeError("power_sgd message with no update awaiting it", 0);
        }
        const Plan plan(layout, m_params, m_round);
        ByteReader reader(message);
        ReadHeader(layout, reader, Kind::Message, m_params.rank);
        std::vector<float> pHat;
        ReadBody(reader, plan.pFloats, pHat);

        if (m_params.errorFeedback)
        {
            m_residual.assign(m_m.size(), 0.0f); // dense tensors arrive exactly
        }
        ByteWriter writer(out);
        writer.Reserve(12 + 4 * plan.qFloats);
        WriteHeader(layout, writer, Kind::Reply, m_params.rank);
        std::vector<float> q;
        std::vector<float> approx;
        for (const Plan::Matrix& mx : plan.matrices)
        {
            const uint64_t d = mx.n * mx.m;
            const uint64_t offset = layout.Offset(mx.tensor);
            const ConstMatrixView pView = ConstSlice(pHat, mx.pOffset, mx.n, m_params.rank);
            q.resize(mx.m * m_params.rank);
            ComputeQ(ConstSlice(m_m, offset, mx.n, mx.m),
                     pView,
                     MutableMatrixView(q, mx.m, m_params.rank));
            writer.WriteF32Array(q);
            if (m_params.errorFeedback)
            {
                approx.resize(d);
                Reconstruct(pView,
                            ConstMatrixView(q, mx.m, m_params.rank),
                            MutableMatrixView(approx, mx.n, mx.m));
                for (uint64_t i = 0; i < d; ++i)
                {
                    m_residual[offset + i] = m_m[offset + i] - approx[i];
                }
            }
        }
        m_awaitingReply = false;
    }

    void Decode(const TensorLayout& /* layout */,
                std::span<const uint8_t> /* payload */,
                std::span<float> /* out */) override
    {
        throw DecodeError("a power_sgd payload is not decodable on its own: the server combines "
                          "it in a two-exchange round",
                          0);
    }

  private:
    CodecWork Work(const TensorLayout& layout, std::span<const uint8_t> payload) const
    {
        return CodecWork{layout.TotalSize(), payload.size(), layout.TotalSize() * m_params.rank};
    }

    PowerSgdParams m_params;
    uint32_t m_round = 1;   ///< from BeginRound: decides dense warm-up or not
    std::vector<float> m_q; ///< this round's Q, from the server's state
    bool m_haveQ = false;
    std::vector<float> m_m; ///< the update last encoded (plus the residual)
    bool m_awaitingReply = false;
    std::vector<float> m_residual; ///< error feedback
};

} // namespace

std::unique_ptr<Codec>
MakePowerSgdCodec(CodecArgs& args)
{
    PowerSgdParams params;
    params.rank = TakeCount(args, "rank").value_or(params.rank);
    if (params.rank < 1 || params.rank > kMaxRank)
    {
        args.Fail("rank",
                  "must be an integer in 1.." + std::to_string(kMaxRank) + ", got " +
                      std::to_string(params.rank));
    }
    params.minCompressionRate =
        TakeNumber(args, "min_compression_rate").value_or(params.minCompressionRate);
    if (!(params.minCompressionRate >= 1.0))
    {
        args.Fail("min_compression_rate", "must be at least 1");
    }
    params.warmStart = TakeBool(args, "warm_start").value_or(params.warmStart);
    params.startRound = TakeCount(args, "start_round").value_or(params.startRound);
    if (params.startRound < 1)
    {
        args.Fail("start_round", "must be at least 1 (rounds are numbered from 1)");
    }
    params.errorFeedback = TakeBool(args, "error_feedback").value_or(params.errorFeedback);
    return std::make_unique<PowerSgdCodec>(args, params);
}

} // namespace fedran::internal
