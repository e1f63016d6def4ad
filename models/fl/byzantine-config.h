#ifndef FEDRAN_MODELS_FL_BYZANTINE_CONFIG_H
#define FEDRAN_MODELS_FL_BYZANTINE_CONFIG_H

// What a scenario says about Byzantine clients (clients.groups[].attack). Plain settings,
// shared by the server and the clients through FederatedTask; the attacks are carried out in
// models/fl/byzantine-attack.h, and the server's robust rules (server.robust, RuleSpec) live in
// models/fl/robust/. docs/byzantine.md describes both.

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

} // namespace fedran

#endif
