#ifndef FEDRAN_COMPRESSION_CODEC_H
#define FEDRAN_COMPRESSION_CODEC_H

// Public interface of the fedran compression library. Nothing here depends on ns-3: a codec
// turns a model update (named float32 tensors laid out in one flat vector) into the exact
// bytes that cross the simulated network, and those bytes back into floats.

#include "compression/rng.h"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fedran
{

/// One named tensor of a model: e.g. {"dense.weight", {10, 784}}.
struct TensorSpec
{
    std::string name;
    std::vector<uint32_t> shape;

    uint64_t Size() const;
};

/**
 * The ordered tensors of a model, stored back to back in one flat float vector.
 * Codecs work per tensor through Offset()/Size(); FedAvg works on the flat vector.
 */
class TensorLayout
{
  public:
    /// An empty layout; same Signature() as TensorLayout(std::vector<TensorSpec>{}).
    TensorLayout()
        : TensorLayout(std::vector<TensorSpec>{})
    {
    }

    explicit TensorLayout(std::vector<TensorSpec> tensors);

    const std::vector<TensorSpec>& Tensors() const
    {
        return m_tensors;
    }

    size_t TensorCount() const
    {
        return m_tensors.size();
    }

    /// Index of the first element of tensor i in the flat vector.
    uint64_t Offset(size_t i) const
    {
        return m_offsets[i];
    }

    /// Total number of floats.
    uint64_t TotalSize() const
    {
        return m_total;
    }

    /// A 32-bit digest of names and shapes. Payloads carry it so that a decoder rejects an
    /// update made for another model instead of misreading it. Stable across versions and
    /// hosts: FNV-1a 32 over the little-endian encoding of u32 tensor count, then per tensor
    /// u32 name length, name bytes, u32 rank, u32 dims (see codec.cc).
    uint32_t Signature() const
    {
        return m_signature;
    }

  private:
    std::vector<TensorSpec> m_tensors;
    std::vector<uint64_t> m_offsets;
    uint64_t m_total = 0;
    uint32_t m_signature = 0;
};

/// A codec specification that cannot be built: the message names the JSON path.
class CodecConfigError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/// A payload that cannot be decoded: the message names the byte offset.
class DecodeError : public std::runtime_error
{
  public:
    DecodeError(const std::string& what, size_t offset);

    size_t Offset() const
    {
        return m_offset;
    }

  private:
    size_t m_offset;
};

/**
 * Combines the decoded updates of one round at the server into one update. The codec decides
 * which (Codec::MakeAggregator): a sample-weighted mean by default, a majority vote for sign.
 */
class Aggregator
{
  public:
    virtual ~Aggregator() = default;

    /// Forgets the previous round; updates will have `size` floats.
    virtual void Reset(size_t size) = 0;

    /// Adds one client's decoded update with its weight (its number of training examples).
    virtual void Add(std::span<const float> decoded, double weight) = 0;

    /// Updates added since Reset.
    virtual size_t Count() const = 0;

    /// Writes the combined update; all zeros when nothing was added.
    virtual void Result(std::span<float> out) const = 0;
};

/// sum(w_k * update_k) / sum(w_k), accumulated in double in the order of Add calls.
std::unique_ptr<Aggregator> MakeWeightedMeanAggregator();

/// signSGD's majority vote: per element, the sign of the sum of the updates' signs (0 on a
/// tie) times the mean of their magnitudes; weights are ignored. Sign's own rule.
std::unique_ptr<Aggregator> MakeMajorityVoteAggregator();

/**
 * The server side of a codec whose round takes two exchanges with each client (PowerSGD):
 * the first payloads cannot be decoded one by one, so instead of Codec::Decode and an
 * Aggregator the server feeds them all in here, sends the message CloseFirstPhase() returns
 * to every client that contributed, and feeds their replies in.
 *
 * Per round: BeginRound, AddFirst per client, CloseFirstPhase, AddReply per client, Result
 * (without the middle two when NeedsReplies() is false).
 * Payload errors throw DecodeError (naming the byte offset) and leave the exchange as if the
 * payload had never arrived.
 */
class RoundExchange
{
  public:
    virtual ~RoundExchange() = default;

    /// Starts round `round` (1-based). Appends to `state` what every selected client's encoder
    /// must receive (Codec::AcceptRoundState) before it encodes; nothing appended: no state.
    virtual void BeginRound(uint32_t round, std::vector<uint8_t>& state) = 0;

    /// A client's first payload (Codec::Encode) and its weight (training examples).
    virtual void AddFirst(std::span<const uint8_t> payload, double weight) = 0;

    /// Whether this round has a second exchange. Without one (power_sgd's dense warm-up
    /// rounds) the first payloads are the updates and CloseFirstPhase is not called.
    virtual bool NeedsReplies() const = 0;

    /// Ends the first phase: appends the message every contributing client must answer
    /// (Codec::EncodeReply).
    virtual void CloseFirstPhase(std::vector<uint8_t>& message) = 0;

    /// A contributing client's reply and its weight.
    virtual void AddReply(std::span<const uint8_t> payload, double weight) = 0;

    /// The updates the result combines: replies, or first payloads without a second exchange.
    virtual size_t Count() const = 0;

    /// Writes the round's combined update; all zeros when Count() is 0.
    virtual void Result(std::span<float> out) = 0;
};

/**
 * The side of a codec that acts at every SGD step of a client's local training rather than
 * once on the finished update (dgc's mode "step", Lin et al. 2018, Algorithm 1). The client
 * hands each step's gradient through it; the trainer steps along what it leaves there, and the
 * round's Encode then sends from the state these steps built.
 *
 * Per round: BeginLocalTraining, LocalStep per minibatch step, EndLocalTraining, Encode.
 */
class LocalStepState
{
  public:
    virtual ~LocalStepState() = default;

    /// A round's local training starts; its steps take learning rate `lr` (w -= lr * g).
    virtual void BeginLocalTraining(const TensorLayout& layout, double lr) = 0;

    /// One step's gradient g (layout.TotalSize() floats), replaced in place by the direction
    /// the step takes.
    virtual void LocalStep(std::span<float> gradient) = 0;

    /// The round's local training ended after `examples` examples (the sum of its minibatch
    /// sizes) on a client holding `samples`: the client's epochs so far, for a warm-up by
    /// epochs.
    virtual void EndLocalTraining(uint64_t examples, uint32_t samples) = 0;
};

class AdaptiveLadder; // compression/adaptive-ladder.h
class CostProfile;    // compression/cost-model.h

/// What an update payload carried, as Codec::DecodeUpdate reports it.
enum class Arrival
{
    Update,    ///< an update, decoded
    SkipReuse, ///< a skipped round whose sender's last update is to be used again (decoded)
    SkipOmit,  ///< a skipped round that leaves its sender out of this round
};

/// A random sparsifier's parameters as its codec read them: `k` elements (0: `ratio` of
/// them), and whether the decoder rescales by d / k.
struct RandomSupport
{
    double ratio = 0.0;
    uint64_t k = 0;
    bool scale = true;
};

/**
 * Encodes a model update into a byte payload and decodes it back.
 *
 * A Codec object may hold per-client state (error-feedback residuals and the like), so the
 * simulator creates one encoder per client and one decoder per (server, client) pair.
 */
class Codec
{
  public:
    virtual ~Codec() = default;

    /// The snake_case name used in scenario files ("none", "fp16", ...).
    virtual std::string_view Name() const = 0;

    /// Stable identifier written into frames; see codec-registry.cc.
    virtual uint16_t Id() const = 0;

    /// Appends the payload for `update` (layout.TotalSize() floats) to `out`.
    virtual void Encode(const TensorLayout& layout,
                        std::span<const float> update,
                        Rng& rng,
                        std::vector<uint8_t>& out) = 0;

    /// Encode for a caller that has no further use for `update`: the same payload and state
    /// as Encode, but a codec that starts model-sized state from the update (error feedback's
    /// residual, DGC's momentum, on their first call) may keep the vector's memory for it
    /// instead of writing new memory. `update` is left valid with unspecified contents. The
    /// default calls Encode.
    virtual void EncodeConsuming(const TensorLayout& layout,
                                 std::vector<float>&& update,
                                 Rng& rng,
                                 std::vector<uint8_t>& out)
    {
        Encode(layout, update, rng, out);
    }

    /// Decodes `payload` into `out` (layout.TotalSize() floats). Throws DecodeError and never
    /// reads outside `payload`.
    virtual void Decode(const TensorLayout& layout,
                        std::span<const uint8_t> payload,
                        std::span<float> out) = 0;

    /// Decodes a client's update payload into `out`, saying what it carried: an update (the
    /// default: Decode), or a codec's skip (a lazy update) and what to do about it.
    virtual Arrival DecodeUpdate(const TensorLayout& layout,
                                 std::span<const uint8_t> payload,
                                 std::span<float> out)
    {
        Decode(layout, payload, out);
        return Arrival::Update;
    }

    /// A copy of this codec with everything it carries from round to round (an error-feedback
    /// residual, DGC's momentum and accumulation), so that encoding with the copy leaves this
    /// one untouched: an adaptive ladder trial-encodes each candidate rung on a copy and keeps
    /// the chosen copy (adaptive-ladder.h). nullptr: the codec cannot be copied, and so cannot
    /// be a ladder rung.
    virtual std::unique_ptr<Codec> Clone() const
    {
        return nullptr;
    }

    /// The rungs a rate controller picks from, for an "adaptive" codec; nullptr otherwise.
    virtual AdaptiveLadder* Ladder()
    {
        return nullptr;
    }

    /// The per-step state of a codec that acts inside local training, or nullptr (the
    /// default: the codec sees only the finished update). Wrappers and ladders do not pass
    /// it on: only a client's own uplink codec can see the trainer's steps.
    virtual LocalStepState* StepState()
    {
        return nullptr;
    }

    /// Tells an encoder which round (1-based) its next Encode belongs to, for codecs whose
    /// behaviour follows a schedule (DGC's warm-up). Wrappers pass it on to their base.
    virtual void BeginRound(uint32_t /* round */)
    {
    }

    /// Reference-machine seconds of the Encode that produced `payload` (its cost model,
    /// compression/cost-model.h, with `profile`'s coefficients; never a measurement).
    virtual double EncodeSeconds(const CostProfile& profile,
                                 const TensorLayout& layout,
                                 std::span<const uint8_t> payload) const;

    /// Reference-machine seconds of decoding `payload` (a two-exchange codec: of the server
    /// folding in a first payload or a reply).
    virtual double DecodeSeconds(const CostProfile& profile,
                                 const TensorLayout& layout,
                                 std::span<const uint8_t> payload) const;

    /// Two-exchange codecs: seconds of the client's EncodeReply that produced `reply`, and of
    /// the server's work between the phases (RoundExchange::CloseFirstPhase). 0 otherwise.
    virtual double ReplySeconds(const CostProfile& profile,
                                const TensorLayout& layout,
                                std::span<const uint8_t> reply) const;
    virtual double CloseSeconds(const CostProfile& profile, const TensorLayout& layout) const;

    /// Lets Encode partition each large tensor across up to `threads` threads (tensor
    /// partitioning). The bytes are the same at any count; codecs whose work does not split
    /// into independent slices ignore it. 1 (the default) encodes on the calling thread.
    virtual void SetEncodeThreads(unsigned /* threads */)
    {
    }

    /// Whether the decoded update is a biased estimate of the input, i.e. its error has a part
    /// common to every client's encoding (sign's one scale, the coordinates top_k and
    /// threshold drop, rounding to nearest) that does not shrink when a round averages the
    /// clients' updates; an unbiased codec's error (stochastic rounding, scaled random_k) is
    /// independent across clients and does. A wrapper (error feedback, DGC) is as its base.
    /// The `time` policy weighs a biased rung's error by the updates a round averages
    /// (models/fl/time-policy.h).
    virtual bool BiasedError() const
    {
        return false;
    }

    /// A random sparsifier's parameters (random_k's), for a scheme that draws the same kind of
    /// support itself (secure aggregation's common support); nullopt for any other codec.
    virtual std::optional<RandomSupport> RandomSupportParameters() const
    {
        return std::nullopt;
    }

    /// Whether MakeAggregator() is the codec's own rule rather than the weighted mean (sign's
    /// majority vote), so that no other aggregation rule may replace it.
    virtual bool BringsAggregator() const
    {
        return false;
    }

    /// How the server combines updates decoded by this codec.
    virtual std::unique_ptr<Aggregator> MakeAggregator() const
    {
        return MakeWeightedMeanAggregator();
    }

    /// Whether a round with this codec takes two exchanges (MakeExchange is not nullptr).
    virtual bool HasRoundExchange() const
    {
        return false;
    }

    /// Codecs whose round takes two exchanges return their server side; nullptr for the
    /// others, whose payloads the server decodes one by one. `seed` seeds the server's draws.
    virtual std::unique_ptr<RoundExchange> MakeExchange(const TensorLayout& /* layout */,
                                                        uint64_t /* seed */) const
    {
        return nullptr;
    }

    /// Two-exchange codecs, client side: the state RoundExchange::BeginRound produced, before
    /// this round's Encode. Throws DecodeError (the default: this codec takes no state).
    virtual void AcceptRoundState(const TensorLayout& layout, std::span<const uint8_t> state);

    /// Two-exchange codecs, client side: answers the server's mid-round message about the
    /// update last encoded. Throws DecodeError (the default: this codec has one exchange).
    virtual void EncodeReply(const TensorLayout& layout,
                             std::span<const uint8_t> message,
                             std::vector<uint8_t>& out);
};

// Codecs are built from checked specs: compression/codec-spec.h.

} // namespace fedran

#endif
