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
//
// Choosing a rung: the client encodes its actual update with each candidate rung on a copy of
// that rung's codec (Trial), so the controller compares the exact payload sizes (and errors)
// it would send, not those of a stand-in vector; it then sends the chosen trial (Commit),
// whose copy carries the rung's state on; the other trials are dropped, their rungs unchanged.
// Every rung must be copyable (Codec::Clone), or the ladder is a config error.

#include "compression/codec.h"
#include "compression/rng.h"

#include <array>
#include <span>
#include <string_view>
#include <vector>

namespace fedran
{

/// What a controller learns of a rung from its trial encoding of this round's update.
struct RungProfile
{
    /// Payload bytes (rung byte included) of the rung's encoding of the client's update, with
    /// the rung's own state (error-feedback residual, DGC momentum and accumulation): exactly
    /// what the client sends if it chooses the rung.
    uint64_t payloadBytes = 0;
    /// ||D(C(p)) - p||^2 / ||p||^2 for that encoding, where p is what the rung compresses: the
    /// update itself, or with error feedback the update plus the carried residual, with DGC
    /// the accumulated momentum-corrected update (p = decoded + what the rung carries on).
    /// NaN unless the trial was asked for it (it costs a decode).
    double relativeError = 0.0;
    /// Reference-machine seconds of the trial (its encode, plus its decode when the error was
    /// measured): the cost model's, never a measurement. 0 without a profile.
    double seconds = 0.0;
    /// The rung's codec is biased (Codec::BiasedError): its error does not average out over
    /// the clients of a round.
    bool biased = false;
};

/// Keys of an "adaptive" spec that belong to the controller (models/fl/), not the codec.
/// The codec accepts them without looking; the controller validates them.
constexpr std::array<std::string_view, 23> kLadderControllerKeys = {"policy",
                                                                    "rung",
                                                                    "safety",
                                                                    "estimator",
                                                                    "window",
                                                                    "ewma_alpha",
                                                                    "initial_bps",
                                                                    "no_history",
                                                                    "target_upload_s",
                                                                    "variance_kappa",
                                                                    "skip_ratio",
                                                                    "skip_window",
                                                                    "max_staleness",
                                                                    "rung_schedule",
                                                                    // level policies
                                                                    "psi",
                                                                    "phi",
                                                                    "q_min",
                                                                    "q_max",
                                                                    "max_level",
                                                                    "s0",
                                                                    "lambda_g",
                                                                    "start_bits",
                                                                    "max_bits"};

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

    /**
     * Encodes `update` with `rung` on a copy of the rung's codec (Codec::Clone) and of `rng`,
     * leaving the rung's own state and `rng` untouched, and keeps the result for Commit.
     * Call after the codec's BeginRound for this round, for one update per round (the first
     * trial of a rung in a round is kept: later calls for it return it). `measureError` adds
     * a decode for RungProfile::relativeError; `profile` (may be nullptr) prices the work.
     */
    virtual RungProfile Trial(const TensorLayout& layout,
                              size_t rung,
                              std::span<const float> update,
                              const Rng& rng,
                              bool measureError,
                              const CostProfile* profile) = 0;

    /// Sends `rung`'s trial: appends its payload (and rung byte) to `out`, makes the trial's
    /// codec copy the rung's state from now on, sets `rng` to the state the trial left it in
    /// and selects the rung. Discards the other trials. Throws std::logic_error without a trial
    /// of `rung` since the last BeginRound, Commit or DiscardTrials.
    virtual void Commit(size_t rung, std::vector<uint8_t>& out, Rng& rng) = 0;

    /// Forgets this round's trials (a skip): no rung's state changes.
    virtual void DiscardTrials() = 0;

    /// What the server does with a skipped round: reuse the last update, or omit the client.
    virtual bool ReusesOnSkip() const = 0;

  protected:
    ~AdaptiveLadder() = default;
};

} // namespace fedran

#endif
