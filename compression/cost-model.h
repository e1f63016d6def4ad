#ifndef FEDRAN_COMPRESSION_COST_MODEL_H
#define FEDRAN_COMPRESSION_COST_MODEL_H

// What encoding, decoding and the server's other work cost, in seconds of a reference machine,
// as a deterministic function of the work's size (never of a clock). A CostProfile holds the
// coefficients: the shipped one (compression/data/reference-profile.json, fitted by
// `fedran calibrate` on the machine it names) or a user's own. A device divides these seconds
// by its speed relative to the reference machine.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fedran
{

/// The size of one piece of codec work.
struct CodecWork
{
    uint64_t elements = 0;     ///< floats of the update (or of the tensors) being coded
    uint64_t payloadBytes = 0; ///< bytes of the payload produced or read
    /// elements x rank for a low-rank codec (power_sgd's matrix products); 0 for the others.
    uint64_t rankElements = 0;
};

/// seconds = fixed_s + per_element_s x elements + per_byte_s x payload bytes
///           + per_rank_element_s x elements x rank.
struct LinearCost
{
    double fixedS = 0.0;
    double perElementS = 0.0;
    double perByteS = 0.0;
    double perRankElementS = 0.0;

    double Seconds(const CodecWork& work) const
    {
        return fixedS + perElementS * double(work.elements) + perByteS * double(work.payloadBytes) +
               perRankElementS * double(work.rankElements);
    }
};

/// One codec's costs. `reply` and `close` are a two-exchange codec's client reply and the
/// server's work between the phases (power_sgd's orthonormalisation); zero for the others.
struct CodecCost
{
    LinearCost encode;
    LinearCost decode;
    LinearCost reply;
    LinearCost close;
};

/// A profile that cannot be used: the message names the key ("codecs.top_k.encode.fixed_s").
class CostProfileError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/// The terms of a codec's cost model (a bit set over LinearCost's variable terms).
enum CostTerm : uint32_t
{
    kCostElements = 1,
    kCostBytes = 2,
    kCostRankElements = 4,
};

/// What a codec's registry line declares about its cost: which terms it depends on, and the
/// codec specs a calibration times to fit them (JSON array; empty: no work of its own).
struct CostModelDeclaration
{
    uint32_t terms = 0;
    nlohmann::json calibration;
};

/// The declaration of a registered codec type; throws CodecConfigError for an unknown one.
CostModelDeclaration CodecCostModel(std::string_view type);

class CostProfile
{
  public:
    /// The shipped profile of the reference machine.
    static const CostProfile& Reference();

    /// A profile from its JSON form (as ToJson writes it). Every codec of the registry must
    /// be there; throws CostProfileError naming the first bad or missing key.
    static CostProfile FromJson(const nlohmann::json& json);

    nlohmann::json ToJson() const;

    /// The costs of a registered codec type.
    const CodecCost& Codec(std::string_view type) const;

    /// The machine the coefficients were measured on (free-form: cpu, cores, date, command).
    nlohmann::json machine = nlohmann::json::object();
    std::map<std::string, CodecCost, std::less<>> codecs;
    /// Folding one decoded update into the aggregate, per element (server).
    double foldPerElementS = 0.0;
    /// Applying the combined update to the model (server optimiser), per element.
    double applyPerElementS = 0.0;
    /// One floating-point operation of a model's forward pass (evaluation).
    double flopS = 0.0;
    /// Robust aggregation rules (server.robust.type), by name: seconds per unit of the work a
    /// rule's combination does once a round's updates are in (its own unit, such as one
    /// update element for a coordinate-wise median; AggregationRule::ResultWork). Optional in
    /// the JSON ("server.rules"); a scenario whose rule is missing is refused.
    std::map<std::string, double, std::less<>> ruleWorkS;
};

} // namespace fedran

#endif
