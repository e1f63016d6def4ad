#ifndef FEDRAN_COMPRESSION_CODEC_SPEC_H
#define FEDRAN_COMPRESSION_CODEC_SPEC_H

// A codec spec read and checked once, where the scenario is read, and the codec built from it.
// Everything above compression/ holds CodecSpecs, never raw JSON: what a codec can do is asked
// of its spec (declared in the codec registry, codec-registry.cc), not found by comparing type
// names or walking its JSON.

#include "compression/codec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fedran
{

namespace internal
{
class CodecArgs;
}

/// How a codec's payloads can be summed under secure aggregation's pairwise masks, which
/// cancel only in a sum over elements every site sends.
enum class MaskedSum : uint8_t
{
    NotComposed,  ///< not composed (a wrapper's state, a ladder, two exchanges)
    Dense,        ///< every element (quantised or not): the dense update is masked
    SharedRandom, ///< random elements: every site keeps one common support a round (RandomSupport)
    OwnSupport,   ///< each site keeps elements of its own choosing: cannot be composed
};

/// What a codec type can do, declared once in its registry row.
struct CodecTraits
{
    /// Why its update cannot be encoded bucket by bucket (layerwise pipelining, tensor
    /// partitioning across trainers), or empty when it can: each bucket's payload is the
    /// bytes of the same elements in the whole update's payload.
    std::string_view unsplittableBecause;
    /// It has a mode that acts at every step of local training (dgc's "step"): the keys that
    /// turn it off (a JSON object merged into the spec), giving the same frame sizes for a
    /// finished update; empty if it has none.
    std::string_view stepModeOff;
    /// It may bring its own server aggregator (sign's majority vote).
    bool mayBringAggregator = false;
    /// Why it cannot be a rung of an adaptive ladder, or empty when it can (the ladder's trial
    /// encodings need a copy of a rung with its state, and one exchange a round).
    std::string_view notARungBecause;
    /// It chooses among other codecs each round (it has a ladder).
    bool adaptive = false;
    /// How many model-sized arrays an encoder carries from round to round, held by every
    /// client between its rounds: error feedback's residual 1, dgc's momentum and
    /// accumulation 2, none 0.
    uint32_t stateModels = 0;
    /// How secure aggregation can sum its payloads.
    MaskedSum maskedSum = MaskedSum::NotComposed;
};

/// The traits of a registered codec type; throws CodecConfigError for an unknown one.
const CodecTraits& CodecTypeTraits(std::string_view type);

/**
 * A codec spec, checked: its type, its JSON as given, the scenario path its messages name
 * (e.g. "compression.uplink"), the specs it wraps, and what the codec it builds does with
 * these parameters. Copies are cheap and share the checked spec.
 */
class CodecSpec
{
  public:
    /// No codec given (Empty()); building from it is an error.
    CodecSpec() = default;

    /// Checks `json` by building the codec it names once. Throws CodecConfigError naming the
    /// offending key under `path`.
    static CodecSpec Parse(const nlohmann::json& json, const std::string& path);

    /// Parse, handing over the codec built to check it.
    static CodecSpec Parse(const nlohmann::json& json,
                           const std::string& path,
                           std::unique_ptr<Codec>& codec);

    /// The same spec, its messages naming `path` instead (a hub's copy of the uplink codec).
    CodecSpec At(const std::string& path) const;

    bool Empty() const
    {
        return m_node == nullptr;
    }

    const std::string& Type() const;
    /// The id its frames carry (codec-registry.cc).
    uint16_t WireId() const;
    /// The type with what it wraps, for traces and messages: "error_feedback(top_k)".
    std::string Label() const;
    const nlohmann::json& Json() const;
    const std::string& Path() const;
    const CodecTraits& Traits() const;

    /// Where in its parent's JSON it was read ("/base", "/ladder/0"); empty at the top.
    const nlohmann::json::json_pointer& InParent() const;

    /// The specs it wraps, in order: a wrapper's base, an adaptive codec's rungs.
    std::span<const CodecSpec> Children() const;

    /// Its round takes two exchanges (power_sgd): the server needs every update first.
    bool TwoExchanges() const;
    /// It acts at every local step (dgc in mode "step"), itself; its children see finished
    /// updates only.
    bool UsesStepMode() const;
    /// It, or a spec it wraps, has the server aggregate its way (sign's majority vote).
    bool BringsAggregator() const;
    /// A random sparsifier's parameters (random_k's ratio or k, and scale); nullopt for any
    /// other codec.
    const std::optional<RandomSupport>& RandomSupportParameters() const;
    /// It, or a spec it wraps, carries a model-sized state between rounds (CodecTraits).
    bool KeepsState() const
    {
        return StateModels() > 0;
    }
    /// The model-sized arrays it and the specs it wraps carry between rounds, in all.
    uint32_t StateModels() const;
    /// The same spec with every step mode turned off (CodecTraits::stepModeOff): what encodes a
    /// finished update alone into frames of the same sizes.
    CodecSpec ForFinishedUpdates() const;
    /// Why this spec cannot encode bucket by bucket (its traits, its children's or its
    /// mode's), or empty when it can.
    std::string UnsplittableBecause() const;

  private:
    friend class internal::CodecArgs; // records where in its parent a child spec was read
    struct Node;
    std::shared_ptr<const Node> m_node;
};

/// Builds the codec `spec` names. The spec was checked when it was parsed, so this throws only
/// if `spec` is Empty() (CodecConfigError).
std::unique_ptr<Codec> MakeCodec(const CodecSpec& spec);

/// Parses and builds in one step: for tools and tests that hold a spec once.
std::unique_ptr<Codec> MakeCodec(const nlohmann::json& spec, const std::string& path);

/// Names of every registered codec type, for validation messages and documentation.
std::vector<std::string> CodecTypeNames();

} // namespace fedran

#endif
