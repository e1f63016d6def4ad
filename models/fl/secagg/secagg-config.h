#ifndef FEDRAN_MODELS_FL_SECAGG_SECAGG_CONFIG_H
#define FEDRAN_MODELS_FL_SECAGG_SECAGG_CONFIG_H

// privacy.secure_aggregation of a scenario (docs/privacy.md): Bonawitz et al.'s secure
// aggregation (CCS 2017, "secagg": every client masks with every other) or Bell et al.'s
// SecAgg+ (CCS 2020, "secagg_plus": each client masks with its num_shares - 1 neighbours on a
// circulant graph, as Flower's SecAggPlusWorkflow), with Flower's key names.

#include <cstdint>
#include <string>

namespace fedran
{

struct SecAggConfig
{
    /// "secagg" (complete graph), "secagg_plus" (circulant graph of num_shares); empty: off.
    std::string type;
    /// num_shares: the neighbourhood size, the client itself included (forced odd as Flower
    /// does); "secagg": the cohort size (0 here means "all").
    uint32_t numShares = 0;
    /// reconstruction_threshold (Flower's name; `threshold` in the scenario): shares needed to
    /// rebuild a secret, and the fewest clients a stage may end with.
    uint32_t threshold = 0;
    uint32_t fieldBits = 32;               ///< field_bits b: elements are mod 2^b (Flower: 2^32)
    double clippingRange = 8.0;            ///< clipping_range c: values clipped to [-c, c]
    uint64_t quantizationRange = 1u << 22; ///< quantization_range Q: values rounded into [0, Q]
    double maxWeight = 1000.0;             ///< max_weight: examples that make a weight of 1
    double timeoutS = 10.0;                ///< timeout_s: how long a key or unmask stage waits

    bool Enabled() const
    {
        return !type.empty();
    }

    /// The field's modulus minus one: elements are masked with it.
    uint64_t FieldMask() const
    {
        return fieldBits >= 64 ? ~uint64_t{0} : (uint64_t{1} << fieldBits) - 1;
    }
};

} // namespace fedran

#endif
