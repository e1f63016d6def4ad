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
    const size_t n = update.size();
    // The residual buffer first holds p, the vector actually compressed, and then p - D(C(p)):
    // one model-sized array of state, and scratch only for a base that is not sparse.
    float* e = nullptr;
    const float* g = update.data();
    if (m_residual.size() != n)
    {
        // e = 0 (the first Encode, or another layout): p = g + beta * 0 is g + 0.0f, as beta
        // is finite. Computed as such (it turns -0.0 into +0.0), without reading a zeroed
        // buffer: resize() leaves the new memory unset (large-buffer.h).
        m_residual.resize(n);
        e = m_residual.data();
        for (size_t i = 0; i < n; ++i)
        {
            e[i] = g[i] + 0.0f;
        }
    }
    else
    {
        e = m_residual.data();
        const float beta = m_beta;
        for (size_t i = 0; i < n; ++i)
        {
            e[i] = g[i] + beta * e[i];
        }
    }

    const size_t start = out.size();
    Base().Encode(layout, m_residual, rng, out);
    const auto payload = std::span<const uint8_t>(out).subspan(start);

    if (auto* sparse = dynamic_cast<SparseDecoder*>(&Base()))
    {
        sparse->SubtractDecoded(layout, payload, m_residual);
        return;
    }
    ScratchFloats decoded(n);
    Base().Decode(layout, payload, decoded.Span());
    const float* d = decoded.Span().data();
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
