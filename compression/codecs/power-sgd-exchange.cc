// power_sgd's server side: the round's state to the clients, the weighted sum of their first
// payloads and its orthonormalised P, then the replies' Q, and the result (the protocol is
// described at the top of power-sgd-codec.cc).

#include "compression/cost-model.h"
#include "compression/internal/power-sgd-payload.h"

#include <algorithm>
#include <stdexcept>

namespace fedran::internal::power_sgd
{

namespace
{

class PowerSgdExchange final : public RoundExchange
{
  public:
    PowerSgdExchange(const TensorLayout& layout, const PowerSgdParams& params, uint64_t seed)
        : m_layout(layout)
        , m_params(params)
        , m_plan(layout, params, 1)
        , m_rng(seed, 0)
    {
    }

    void BeginRound(uint32_t round, std::vector<uint8_t>& state) override
    {
        m_plan = Plan(m_layout, m_params, round);
        m_firstSum.assign(m_plan.firstFloats, 0.0);
        m_firstWeight = 0.0;
        m_firsts = 0;
        m_qSum.assign(m_plan.qFloats, 0.0);
        m_replyWeight = 0.0;
        m_replies = 0;
        m_pHat.assign(m_plan.pFloats, 0.0f);
        m_firstPhaseOpen = true;
        if (!NeedsReplies())
        {
            return; // a dense round: no Q to agree on
        }

        ByteWriter writer(state);
        if (m_params.warmStart && !m_q.empty())
        {
            WriteHeader(m_layout, writer, Kind::State, m_params.rank, StateMode::Floats);
            writer.WriteF32Array(m_q);
        }
        else
        {
            WriteHeader(m_layout, writer, Kind::State, m_params.rank, StateMode::Seed);
            writer.WriteU64(m_rng.NextU64());
        }
    }

    void AddFirst(std::span<const uint8_t> payload, double weight) override
    {
        if (!m_firstPhaseOpen)
        {
            throw std::logic_error("power_sgd: first payload after the first phase closed");
        }
        ByteReader reader(payload);
        if (ReadHeader(m_layout, reader, Kind::First, m_params.rank) != m_plan.FirstMode())
        {
            throw DecodeError("power_sgd first payload made for another round's plan "
                              "(dense warm-up or not)",
                              kPayloadHeaderSize + 2);
        }
        ReadBody(reader, m_plan.firstFloats, m_body);
        Accumulate(m_body, weight, m_firstSum);
        m_firstWeight += weight;
        ++m_firsts;
    }

    bool NeedsReplies() const override
    {
        return !m_plan.matrices.empty();
    }

    void CloseFirstPhase(std::vector<uint8_t>& message) override
    {
        m_firstPhaseOpen = false;
        // P sits after the dense tensors' floats in the first payload's order; pick each
        // matrix's block out of the sums.
        uint64_t at = 0;
        size_t matrix = 0;
        for (size_t t = 0; t < m_layout.TensorCount(); ++t)
        {
            if (!m_plan.compressed[t])
            {
                at += m_layout.Tensors()[t].Size();
                continue;
            }
            const Plan::Matrix& mx = m_plan.matrices[matrix++];
            const uint64_t count = mx.n * m_params.rank;
            for (uint64_t i = 0; i < count; ++i)
            {
                m_pHat[mx.pOffset + i] = static_cast<float>(m_firstSum[at + i]);
            }
            Orthonormalize(MutableSlice(m_pHat, mx.pOffset, mx.n, m_params.rank));
            at += count;
        }
        ByteWriter writer(message);
        WriteHeader(m_layout, writer, Kind::Message, m_params.rank);
        writer.WriteF32Array(m_pHat);
    }

    void AddReply(std::span<const uint8_t> payload, double weight) override
    {
        if (m_firstPhaseOpen)
        {
            throw std::logic_error("power_sgd: reply before the first phase closed");
        }
        ByteReader reader(payload);
        ReadHeader(m_layout, reader, Kind::Reply, m_params.rank);
        ReadBody(reader, m_plan.qFloats, m_body);
        Accumulate(m_body, weight, m_qSum);
        m_replyWeight += weight;
        ++m_replies;
    }

    size_t Count() const override
    {
        return NeedsReplies() ? m_replies : m_firsts;
    }

    void Result(std::span<float> out) override
    {
        CheckUpdateSize(m_layout, out.size(), "power_sgd");
        std::fill(out.begin(), out.end(), 0.0f);
        if (Count() == 0)
        {
            return;
        }
        std::vector<float> qMean(m_plan.qFloats);
        for (size_t i = 0; i < qMean.size(); ++i)
        {
            qMean[i] = static_cast<float>(m_qSum[i] / m_replyWeight); // empty without replies
        }
        uint64_t at = 0;
        size_t matrix = 0;
        for (size_t t = 0; t < m_layout.TensorCount(); ++t)
        {
            const uint64_t d = m_layout.Tensors()[t].Size();
            float* dst = out.data() + m_layout.Offset(t);
            if (!m_plan.compressed[t])
            {
                for (uint64_t i = 0; i < d; ++i)
                {
                    dst[i] = static_cast<float>(m_firstSum[at + i] / m_firstWeight);
                }
                at += d;
                continue;
            }
            const Plan::Matrix& mx = m_plan.matrices[matrix++];
            Reconstruct(ConstSlice(m_pHat, mx.pOffset, mx.n, m_params.rank),
                        ConstSlice(qMean, mx.qOffset, mx.m, m_params.rank),
                        MutableMatrixView(std::span<float>(dst, d), mx.n, mx.m));
            at += mx.n * m_params.rank;
        }
        // Warm start: next round's clients multiply by this round's averaged Q.
        if (NeedsReplies())
        {
            m_q = std::move(qMean);
        }
    }

  private:
    /// sum += weight * values, in double and in payload order (deterministic).
    static void Accumulate(const std::vector<float>& values,
                           double weight,
                           std::vector<double>& sum)
    {
        if (!(weight > 0.0))
        {
            throw std::invalid_argument("power_sgd: an update's weight must be positive");
        }
        for (size_t i = 0; i < values.size(); ++i)
        {
            sum[i] += weight * values[i];
        }
    }

    TensorLayout m_layout;
    PowerSgdParams m_params;
    Plan m_plan;
    Rng m_rng;
    std::vector<float> m_q; ///< averaged Q of the last round with replies (warm start)
    std::vector<double> m_firstSum;
    double m_firstWeight = 0.0;
    size_t m_firsts = 0;
    std::vector<float> m_pHat;
    std::vector<double> m_qSum;
    double m_replyWeight = 0.0;
    size_t m_replies = 0;
    std::vector<float> m_body;
    bool m_firstPhaseOpen = false;
};

} // namespace

std::unique_ptr<RoundExchange>
MakeExchange(const TensorLayout& layout, const PowerSgdParams& params, uint64_t seed)
{
    return std::make_unique<PowerSgdExchange>(layout, params, seed);
}

} // namespace fedran::internal::power_sgd
