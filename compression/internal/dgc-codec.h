#ifndef FEDRAN_COMPRESSION_INTERNAL_DGC_CODEC_H
#define FEDRAN_COMPRESSION_INTERNAL_DGC_CODEC_H

// "dgc": Deep Gradient Compression (Lin, Han, Mao, Wang, Dally, ICLR'18).
//
// Parameters: mode ("step", the default, or "round"), ratio (final density, (0, 1], default
// 0.001), momentum ([0, 1), 0.9), clip_norm (>= 0, default 0 = off), warmup_epochs (mode
// step) or warmup_rounds (mode round) (integer >= 0, 4), warmup_stages (default: the
// warm-up's length; see sparsity-warmup.h), sample_ratio ((0, 1], 0.01; see dgc-select.h),
// layer_ratios (optional object: tensor name -> final density).
//
// mode "step" (the paper's Algorithm 1 with momentum correction): the client's uplink codec
// acts at every local SGD step (LocalStepState); per tensor, with momentum u and accumulation
// v (zero at the start, kept across rounds):
//
//   every step, g the minibatch gradient (with weight decay and the FedProx term):
//     g' = g * min(1, clip_norm / ||g||_2)      local clipping, per tensor, if clip_norm > 0
//     u  = momentum * u + g'                    momentum correction
//     v  = v + u                                local accumulation
//     the trainer steps w -= lr * u
//   at the round's end (Encode), its one upload:
//     send -lr * v at the k largest |v| (SelectDgc: sampled threshold, see dgc-select.h)
//     u[i] = v[i] = 0 at every sent i           momentum factor masking
//
// The paper sends at every step; a client here sends once per round, so the steps of a round
// accumulate into v before one selection. With one local step per round this is exactly
// Algorithm 1 (every worker computes g at the global model, the server applies the mean of
// the sparse updates); with more, -lr * (v before the round) + (local - global) is what v
// holds at the selection, so nothing is lost, only delayed. lr is applied at the send, as the
// reference code's optimiser does: a value delayed to a later round goes with that round's lr.
// The warm-up counts the client's own epochs: the selection ending its e-th pass over its data
// (e = ceil(examples trained on so far / examples held), 1-based) has the warm-up density of
// epoch e. The update's Encode argument is not read (it is local - global, which the steps
// already accumulated); an Encode without local training before it throws CodecConfigError.
//
// mode "round": the same on the finished update, once per round: g is the client's update
// (local - global, already scaled by lr), the warm-up counts server rounds (BeginRound), and
// the payload carries v itself. For codecs without local steps: the downlink, a wrapper's
// base, an adaptive rung, the buckets of training.pipelining, edge aggregators, fedran codec.
//
// Density per tensor in warm-up unit r (epoch or round, 1-based; 0 = none yet),
// sparsity-warmup.h:
//   r in [1, warmup length]:  max(ratio, 0.25^stage(r))   (25%, 6.25%, 1.5625%, 0.390625%)
//   otherwise: ratio
// which is the paper's warm-up (75%, 93.75%, 98.4375%, 99.6%, 99.9% sparsity) for the
// default ratio 0.001 and a length of 4 (one stage per epoch or round). `ratio` is replaced per
// tensor by layer_ratios[name] where given. k = max(1, floor(density * d)), capped at d.
//
// clip_norm is per tensor, as in the reference code (memory.compensate runs per named
// parameter); the paper clips at the global threshold scaled by N^-1/2, so choose
// clip_norm = threshold / sqrt(clients per round).
//
// Wire format (little-endian), the same in both modes:
//   0  payload header (u32 layout signature, u32 tensor count)
//   8  per tensor, in layout order: one sparse body (sparse-coding.h: u8 mode, u32 count,
//      delta-varint or bitmap index set, count float32 values)
// Decoding is stateless: ReadSparse per tensor, then ExpectEnd.

#include "compression/internal/codecs.h"
#include "compression/internal/magnitude-filter.h"
#include "compression/internal/sparsity-warmup.h"
#include "compression/internal/state-buffer.h"

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fedran::internal
{

/// dgc's warmup_rounds (mode round) when the spec sets none (one stage per round: 25% ...
/// 0.39%).
constexpr uint32_t kDgcDefaultWarmupRounds = 4;
/// dgc's warmup_epochs (mode step) when the spec sets none: the paper's four epochs.
constexpr uint32_t kDgcDefaultWarmupEpochs = 4;

struct DgcConfig
{
    bool perStep = true; ///< mode "step"; false: "round"
    double ratio = 0.001;
    float momentum = 0.9f;
    float clipNorm = 0.0f; ///< 0 = off
    SparsityWarmup warmup{4, 4};
    double sampleRatio = 0.01;
    std::map<std::string, double, std::less<>> layerRatios;
    std::string layerRatiosPath; ///< for errors found when the layout is first seen
    std::string modePath;        ///< for an Encode in mode step without local training
};

class DgcCodec final
    : public RegisteredCodec
    , public SparseDecoder
    , private LocalStepState
{
  public:
    DgcCodec(const CodecArgs& args, DgcConfig config);

    /// Throws CodecConfigError if layer_ratios names a tensor the layout lacks. A layout of
    /// another total size restarts from u = v = 0.
    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& rng,
                std::vector<uint8_t>& out) override;

    /// Encode; in mode round, a first call (or another layout) forms u in `update`'s memory.
    void EncodeConsuming(const TensorLayout& layout,
                         std::vector<float>&& update,
                         Rng& rng,
                         std::vector<uint8_t>& out) override;

    void Decode(const TensorLayout& layout,
                std::span<const uint8_t> payload,
                std::span<float> out) override;

    void SubtractDecoded(const TensorLayout& layout,
                         std::span<const uint8_t> payload,
                         std::span<float> residual) override;

    void BeginRound(uint32_t round) override
    {
        m_round = round;
    }

    std::unique_ptr<Codec> Clone() const override
    {
        return std::make_unique<DgcCodec>(*this);
    }

    /// Its top-k selection is top_k's bias, delayed rather than lost (as error feedback).
    bool BiasedError() const override
    {
        return true;
    }

    /// This codec itself in mode step, nullptr in mode round.
    LocalStepState* StepState() override
    {
        return m_config.perStep ? this : nullptr;
    }

    /// Mode step: the warm-up epoch of the next Encode (0 before any local training).
    uint32_t Epoch() const
    {
        return m_epoch;
    }

    /// Elements sent from a tensor of `size` at `density`.
    static uint64_t SentCount(double density, uint64_t size);

    /// Momentum u and accumulation v after the latest Encode (empty before the first).
    std::span<const float> Momentum() const
    {
        return m_momentum;
    }

    std::span<const float> Accumulation() const
    {
        return m_accumulationInMomentum ? m_momentum : m_accumulation;
    }

  private:
    void BeginLocalTraining(const TensorLayout& layout, double lr) override;
    void LocalStep(std::span<float> gradient) override;
    void EndLocalTraining(uint64_t examples, uint32_t samples) override;

    /// Mode step: u = v = 0 for a layout of another total size.
    void ResetStateFor(size_t size);
    /// Mode round: sizes u and v for this round's step over `size` floats and says what they
    /// held before it (a layout of another size starts again from zero).
    MomentumStep::Before PrepareRoundState(size_t size);
    /// u and v start from zero; v lives in u's buffer.
    void StartFromZero();
    /// Selects, writes and masks every tensor of v; values are written times `valueScale`.
    /// Mode round passes the update and what u and v held before it: each tensor's u and v
    /// are formed in the pass that collects its candidates (SelectDgcStepped).
    void SelectAndWrite(const TensorLayout& layout,
                        uint32_t warmupUnit,
                        float valueScale,
                        Rng& rng,
                        std::vector<uint8_t>& out,
                        std::span<const float> update = {},
                        MomentumStep::Before before = MomentumStep::Before::Separate);

    /// Resolves layer_ratios against `layout` into m_tensorRatios (once per layout).
    void ResolveRatios(const TensorLayout& layout);

    DgcConfig m_config;
    uint32_t m_round = 0;
    // Mode step: the layout and learning rate of the round's local training, the examples
    // trained on so far (for the epoch count), and whether training ran since the last Encode.
    TensorLayout m_stepLayout;
    float m_lr = 0.0f;
    uint64_t m_examplesSeen = 0;
    uint32_t m_epoch = 0;
    bool m_trained = false;
    StateBuffer m_momentum;
    StateBuffer m_accumulation;
    // Mode round: after a first round, v equals u bit for bit (both s * g, masked at the same
    // positions), so v lives in u's buffer and its own is allocated only when the next round
    // makes them differ: half the state for a client that is selected once, and one model-sized
    // write fewer in its first encode (docs/performance.md).
    bool m_accumulationInMomentum = false;
    std::vector<double> m_tensorRatios;
    std::optional<uint32_t> m_ratiosSignature; ///< layout m_tensorRatios was resolved for
    std::vector<uint32_t> m_indices;           ///< selection of the tensor being encoded
    std::vector<float> m_values;
};

} // namespace fedran::internal

#endif
