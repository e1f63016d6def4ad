#ifndef FEDRAN_COMPRESSION_ADAPTIVE_LADDER_H
#define FEDRAN_COMPRESSION_ADAPTIVE_LADDER_H

// The "adaptive" uplink codec: a ladder of codec specs ("rungs", ordered from most to least
// faithful) of which the client picks one per round (models/fl/rate-controller.h decides
// which). Its Codec::Ladder() is the AdaptiveLadder below; every other codec has none.
//
// Payload: the chosen rung's own payload, then one byte: the rung index. An empty payload is a
// skipped round (a lazy update): Codec::DecodeUpdate says whether the server reuses the
// client's last decoded update ("on_skip": "reuse", Arrival::SkipReuse) or leaves the client
// out of the round ("omit", Arrival::SkipOmit).
//
// Every rung keeps its own codec instance for the whole run, on the client and in the
// server's per-client decoder: state a codec carries between rounds (an error-feedback
// residual, DGC's momentum) belongs to its rung and stays frozen while other rungs are used.
// It resumes, with whatever it held, the next time its rung is chosen.

#include "compression/codec.h"

#include <array>
#include <string_view>

namespace fedran
{

/// What a controller needs to know about a rung before the update is encoded.
struct RungProfile
{
    /// Payload bytes (rung byte included) of the rung's encoding of a probe update: a fixed
    /// Gaussian vector of the layout's size. Exact for codecs whose size depends only on the
    /// layout (none, fp16, quantization, sign, top_k, random_k, dense qsgd); an estimate for
    /// the data-dependent ones (threshold, DGC's sampled threshold).
    uint64_t payloadBytes = 0;
    /// ||D(C(x)) - x||^2 / ||x||^2 of one encoding of the probe by a fresh instance of the
    /// rung (so without error-feedback memory): the relative variance the rung adds.
    double relativeError = 0.0;
};

/// Keys of an "adaptive" spec that belong to the controller (models/fl/), not the codec.
/// The codec accepts them without looking; the controller validates them.
constexpr std::array<std::string_view, 14> kLadderControllerKeys = {
    "policy",          "rung",           "safety",     "estimator",     "window",
    "ewma_alpha",      "initial_bps",    "no_history", "target_upload_s",
    "variance_kappa",  "skip_ratio",     "skip_window", "max_staleness", "rung_schedule"};

/// The rungs of an "adaptive" codec, as its rate controller sees them (Codec::Ladder()).
class AdaptiveLadder
{
  public:
    virtual size_t RungCount() const = 0;

    /// The rung the codec's next Encode uses (0 = most faithful).
    virtual void SelectRung(size_t rung) = 0;
    virtual size_t SelectedRung() const = 0;

    /// The spec type of a rung, e.g. "error_feedback(top_k)".
    virtual std::string RungName(size_t rung) const = 0;

    /// Size and distortion of `rung` at `round` (cached; recomputed when the round changes a
    /// codec's schedule, i.e. for DGC during its warm-up).
    virtual RungProfile Profile(const TensorLayout& layout, size_t rung, uint32_t round) = 0;

    /// What the server does with a skipped round: reuse the last update, or omit the client.
    virtual bool ReusesOnSkip() const = 0;

  protected:
    ~AdaptiveLadder() = default;
};

} // namespace fedran

#endif
