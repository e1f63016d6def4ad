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

    /// Decodes `payload` into `out` (layout.TotalSize() floats). Throws DecodeError and never
    /// reads outside `payload`.
    virtual void Decode(const TensorLayout& layout,
                        std::span<const uint8_t> payload,
                        std::span<float> out) = 0;

    /// Tells an encoder which round (1-based) its next Encode belongs to, for codecs whose
    /// behaviour follows a schedule (DGC's warm-up). Wrappers pass it on to their base.
    virtual void BeginRound(uint32_t /* round */)
    {
    }

    /// How the server combines updates decoded by this codec.
    virtual std::unique_ptr<Aggregator> MakeAggregator() const
    {
        return MakeWeightedMeanAggregator();
    }
};

/**
 * Builds the codec a JSON spec names, e.g. {"type": "none"}. `path` is the spec's location in
 * the scenario (e.g. "compression.uplink") and prefixes every error message.
 * Throws CodecConfigError.
 */
std::unique_ptr<Codec> MakeCodec(const nlohmann::json& spec, const std::string& path);

/// Names of every registered codec type, for validation messages and documentation.
std::vector<std::string> CodecTypeNames();

} // namespace fedran

#endif
