#include "compression/internal/error-feedback-codec.h"

#include "compression/internal/codec-params.h"
#include "compression/internal/payload-header.h"
#include "compression/internal/scratch-floats.h"

namespace fedran::internal
{

ErrorFeedbackCodec::ErrorFeedbackCodec(CodecArgs& args, float beta)
    : WrapperCodec(args)
    , m_beta(beta)
{
}

void
ErrorFeedbackCodec::Encode(const TensorLayout& layout,
                           std::span<const float> update,
                           Rng& rng,
                           std::vector<uint8_t>& out)
{
    CheckUpdateSize(layout, update.size(), Name());
    // The residual buffer first holds p, the vector actually compressed, and then p - D(C(p)):
    // one model-sized array of state, and scratch only for a base that is not sparse.
    const bool fresh = m_residual.size() != update.size();
    if (fresh)
    {
        m_residual.resize(update.size());
    }
    EncodeInResidual(layout, update, fresh, rng, out);
}

void
ErrorFeedbackCodec::EncodeConsuming(const TensorLayout& layout,
                                    std::vector<float>&& update,
                                    Rng& rng,
                                    std::vector<uint8_t>& out)
{
    CheckUpdateSize(layout, update.size(), Name());
    if (m_residual.size() == update.size())
    {
        Encode(layout, update, rng, out);
        return;
    }
    // p = g + 0 is formed where g is: no new memory for the state.
    m_residual.Adopt(std::move(update));
    EncodeInResidual(layout, m_residual, true, rng, out);
}

void
ErrorFeedbackCodec::EncodeInResidual(const TensorLayout& layout,
                                     std::span<const float> update,
                                     bool fresh,
                                     Rng& rng,
                                     std::vector<uint8_t>& out)
{
    // e = 0 (fresh: the first Encode, or another layout): p = g + beta * 0 is g + 0.0f, as
    // beta is finite. Computed as such (it turns -0.0 into +0.0), without reading a zeroed
    // buffer: new memory is left unset (large-buffer.h).
    const Compensation compensation{update, m_beta, fresh};
    const size_t start = out.size();
    if (auto* compensating = dynamic_cast<CompensatingEncoder*>(&Base()))
    {
        // The base forms p while it selects from it: one pass over the residual fewer.
        compensating->EncodeCompensated(layout, compensation, m_residual, rng, out);
    }
    else
    {
        compensation.Apply(m_residual, 0, update.size());
        Base().Encode(layout, m_residual, rng, out);
    }
    SubtractPayload(layout, std::span<const uint8_t>(out).subspan(start));
}

void
ErrorFeedbackCodec::SubtractPayload(const TensorLayout& layout, std::span<const uint8_t> payload)
{
    if (auto* sparse = dynamic_cast<SparseDecoder*>(&Base()))
    {
        sparse->SubtractDecoded(layout, payload, m_residual);
        return;
    }
    const size_t n = m_residual.size();
    ScratchFloats decoded(n);
    Base().Decode(layout, payload, decoded.Span());
    const float* d = decoded.Span().data();
    float* e = m_residual.data();
    for (size_t i = 0; i < n; ++i)
    {
        e[i] -= d[i];
    }
}

std::unique_ptr<Codec>
MakeErrorFeedbackCodec(CodecArgs& args)
{
    const double beta = TakeNumber(args, "error_compensation").value_or(1.0);
    if (!(beta >= 0.0 && beta <= 1.0))
    {
        args.Fail("error_compensation", "must be in [0, 1], got " + nlohmann::json(beta).dump());
    }
    auto codec = std::make_unique<ErrorFeedbackCodec>(args, static_cast<float>(beta));
    if (codec->HasRoundExchange())
    {
        // The residual needs the decoded update, which a two-exchange codec only has after
        // the server's reply; such a codec keeps its own error feedback (power_sgd's option).
        args.Fail("base",
                  "a two-exchange codec (power_sgd) cannot be wrapped in error_feedback;"
                  " use its own error_feedback option");
    }
    return codec;
}

} // namespace fedran::internal
