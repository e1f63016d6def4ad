#ifndef FEDRAN_MODELS_FL_BYZANTINE_CONFIG_H
#define FEDRAN_MODELS_FL_BYZANTINE_CONFIG_H

// What a scenario says about Byzantine clients (clients.groups[].attack) and about the
// server's robust aggregation rule (server.robust). Plain settings, shared by the server and
// the clients through FederatedTask; the attacks are carried out in models/fl/byzantine-attack.h
// and the rules live in models/fl/robust/. docs/byzantine.md describes both.

#include <cstdint>
#include <optional>
#include <string>

namespace fedran
{

/// clients.groups[].attack: how a Byzantine client corrupts its update.
struct AttackConfig
{
    /// "" (honest), "sign_flip", "scaled", "gaussian", "random_sign", "zero", "label_flip",
    /// "alie", "ipm".
    std::string type;
    double scale = 1.0;      ///< sign_flip: sends -scale x update; scaled: scale x update
    double sigma = 1.0;      ///< gaussian: standard deviation of the noise sent
    std::optional<double> z; ///< alie: mean - z std; unset: Baruch et al.'s z for the round
    double epsilon = 0.1;    ///< ipm: sends -epsilon x mean of the honest updates
    uint32_t startRound = 1; ///< the first round the client attacks in (honest before)

    bool Active(uint32_t round) const
    {
        return !type.empty() && round >= startRound;
    }

    /// Whether the attack needs the honest updates of the round (CollusionOracle).
    bool Colluding() const
    {
        return type == "alie" || type == "ipm";
    }
};

/// server.robust: the rule that combines the decoded updates of a round.
struct RobustRuleConfig
{
    /// "mean" (the uplink codec's own rule: the sample-weighted mean, or sign's majority
    /// vote), "median", "trimmed_mean", "krum", "multi_krum", "geometric_median",
    /// "centered_clipping", "norm_bound".
    std::string type = "mean";
    std::optional<double> beta;    ///< trimmed_mean: fraction trimmed at each end (unset: 0.1)
    std::optional<uint32_t> f;     ///< krum, multi_krum: tolerated Byzantine updates
    std::optional<uint32_t> m;     ///< multi_krum: updates averaged (unset: n - f)
    std::optional<uint32_t> iters; ///< geometric_median (unset: 10), centered_clipping (1)
    std::optional<double> tau;     ///< centered_clipping: clipping radius (required)
    std::optional<double> maxNorm; ///< norm_bound: largest update norm kept (required)
};

} // namespace fedran

#endif
