// "clipped": bounds the update, then hands it to its base codec (see wrapper-codec.h; the
// payload is the base's).
//
//   mode "value" (default): every element clamped to [-clip_value, clip_value], as optirs's
//       ClippedCompression and GRACE's DGC value clip.
//   mode "norm": the whole update scaled by min(1, clip_value / ||update||_2), the L2 norm
//       taken over all tensors together: the update is one vector to the server, and a
//       per-tensor norm would change the direction of the update, not only its length.
//       (dgc's own clip_norm is per tensor, following the DGC reference code.)
//
// Non-finite inputs are passed on, not repaired: a NaN stays NaN in "value" mode, and in
// "norm" mode a NaN norm leaves the update as it is.

#include "compression/internal/codec-params.h"
#include "compression/internal/payload-header.h"
#include "compression/internal/scratch-floats.h"
#include "compression/internal/sum-of-squares.h"
#include "compression/internal/wrapper-codec.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fedran::internal
{

namespace
{

enum class ClipMode
{
    kValue,
    kNorm,
};

class ClippedCodec final : public WrapperCodec
{
  public:
    std::unique_ptr<Codec> Clone() const override
    {
        return std::make_unique<ClippedCodec>(*this);
    }

    bool BiasedError() const override
    {
        return true;
    }

    ClippedCodec(CodecArgs& args, float clip, ClipMode mode)
        : WrapperCodec(args)
        , m_clip(clip)
        , m_mode(mode)
    {
    }

    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& rng,
                std::vector<uint8_t>& out) override
    {
        CheckUpdateSize(layout, update.size(), Name());
        const size_t n = update.size();
        const float* g = update.data();
        const float c = m_clip;
        if (m_mode == ClipMode::kNorm)
        {
            const double norm = std::sqrt(SumOfSquares(update));
            if (!(norm > c))
            {
                // Already inside the ball (or NaN): no copy needed.
                Base().Encode(layout, update, rng, out);
                return;
            }
            ScratchFloats clipped(n);
            float* dst = clipped.Span().data();
            const auto scale = static_cast<float>(c / norm);
            for (size_t i = 0; i < n; ++i)
            {
                dst[i] = g[i] * scale;
            }
            Base().Encode(layout, clipped.Span(), rng, out);
            return;
        }
        ScratchFloats clipped(n);
        float* dst = clipped.Span().data();
        for (size_t i = 0; i < n; ++i)
        {
            dst[i] = std::min(std::max(g[i], -c), c);
        }
        Base().Encode(layout, clipped.Span(), rng, out);
    }

  private:
    float m_clip;
    ClipMode m_mode;
};

} // namespace

std::unique_ptr<Codec>
MakeClippedCodec(CodecArgs& args)
{
    const std::optional<double> clip = TakeNumber(args, "clip_value");
    if (!clip)
    {
        args.Fail("clip_value", "missing: the clipping bound is required");
    }
    if (!(*clip > 0.0 && *clip <= std::numeric_limits<float>::max() &&
          static_cast<float>(*clip) > 0.0f))
    {
        args.Fail("clip_value", "must be a positive float32, got " + nlohmann::json(*clip).dump());
    }
    const std::string mode = TakeString(args, "mode").value_or("value");
    if (mode != "value" && mode != "norm")
    {
        args.Fail("mode", "must be \"value\" or \"norm\", got \"" + mode + "\"");
    }
    return std::make_unique<ClippedCodec>(args,
                                          static_cast<float>(*clip),
                                          mode == "norm" ? ClipMode::kNorm : ClipMode::kValue);
}

} // namespace fedran::internal
