#ifndef FEDRAN_MODELS_FL_STALENESS_H
#define FEDRAN_MODELS_FL_STALENESS_H

// Asynchronous FL's settings (server.async) and the staleness weights of FedAsync (Xie, Koyejo
// and Gupta, "Asynchronous Federated Optimization", 2019, section 5.2), which FedBuff (Nguyen
// et al., AISTATS 2022) uses too.

#include <cstdint>
#include <optional>
#include <string>

namespace fedran
{

enum class StalenessKind
{
    Constant,   ///< s(t) = 1
    Polynomial, ///< s(t) = (1 + t)^-a
    Hinge,      ///< s(t) = 1 for t <= b, else 1 / (a (t - b) + 1)
};

struct StalenessConfig
{
    StalenessKind kind = StalenessKind::Polynomial;
    double a = 0.5;
    double b = 4.0;
};

/// The weight of an update `staleness` server versions old.
double StalenessWeight(const StalenessConfig& config, uint32_t staleness);

/// "constant", "polynomial" or "hinge"; throws std::invalid_argument otherwise.
StalenessKind ParseStalenessKind(const std::string& name);

struct AsyncConfig
{
    uint32_t buffer = 10;      ///< K: updates per server step (1: FedAsync)
    uint32_t concurrency = 20; ///< C: sites training at once
    StalenessConfig staleness;
    std::optional<uint32_t> maxStaleness; ///< older updates are discarded ("stale")
};

} // namespace fedran

#endif
