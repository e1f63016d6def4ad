#ifndef FEDRAN_MODELS_FL_LEVEL_POLICY_H
#define FEDRAN_MODELS_FL_LEVEL_POLICY_H

// The published adaptive-quantization schemes as policies of an "adaptive" uplink
// ("policy": "dadaquant" | "adaquantfl" | "adagq"): the server decides each sampled client's
// QSGD level from inputs only it has (the sampled clients' losses and aggregation weights;
// for AdaGQ also the round times, each update's arrival and the aggregated update's norm,
// adagq-server.h), and the client sends its update at that level. The rules
// themselves live in dadaquant-policy.h, adaquantfl-policy.h and adagq-policy.h; this unit
// reads their keys, builds their ladder of QSGD levels when the spec has none, and runs them
// round by round on the server (ServerLevelPolicy).
//
// Protocol (docs/adaptive-bitrate.md): each update frame ends with the client's loss of the
// round's model, measured before training (loss-report.h); the server feeds the reports of a
// round's accepted updates to the rule when the round closes, and the level it decides goes
// to each client in the header of the next round's model frame (the `samples` field, 0 on a
// server frame otherwise). So the level of round t is the rule's level for round t - 1: a
// lag of one round against the papers, where the level of round t uses round t's losses.

#include "models/fl/adagq-policy.h"
#include "models/fl/adagq-server.h"
#include "models/fl/adaquantfl-policy.h"
#include "models/fl/dadaquant-policy.h"

#include <nlohmann/json_fwd.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fedran::control
{

enum class LevelRule
{
    Dadaquant,
    Adaquantfl,
    Adagq,
};

struct LevelPolicyConfig
{
    LevelRule rule = LevelRule::Dadaquant;
    DadaquantConfig dadaquant; ///< phi: `phi`, or rounds / 10
    uint32_t s0 = 2;           ///< AdaQuantFL's first level
    double lambdaG = 1.0;      ///< AdaGQ's gradient-norm weight
    uint32_t startBits = 8;    ///< AdaGQ's first mean width
    uint32_t maxBits = 8;      ///< AdaGQ's widest rung, level 2^maxBits - 1
    /// The levels of the ladder's rungs, most faithful (highest) first.
    std::vector<uint32_t> rungLevels;
};

/// Whether `spec` (an uplink codec spec) is "adaptive" with one of the three level policies.
bool IsLevelPolicy(const nlohmann::json& spec);

/**
 * `spec` with its `ladder` filled in from the policy when it is a level policy without one:
 * QSGD rungs (bucket 512) of levels max_level, max_level - 1, .., 1 for dadaquant (default
 * max_level 4 x q_max, room for the client split) and adaquantfl (default 32); of 2^b - 1
 * levels for b = max_bits .. 1 for adagq (default 8). Any other spec is returned as it is.
 * Keys it cannot read are left to ParseLevelPolicy to report.
 */
nlohmann::json WithLevelLadder(const nlohmann::json& spec);

/**
 * Reads a level policy's keys (psi, phi, q_min, q_max, max_level, s0, lambda_g, start_bits,
 * max_bits) and its ladder, whose rungs must all be qsgd. `rounds` gives phi's default.
 * Throws CodecConfigError naming "<path>.<key>".
 */
LevelPolicyConfig ParseLevelPolicy(const nlohmann::json& spec,
                                   const std::string& path,
                                   uint32_t rounds);

/// The rung of `rungLevels` (highest first) whose level is the smallest at least `level`;
/// rung 0 if none is that high.
size_t RungForLevel(std::span<const uint32_t> rungLevels, uint32_t level);

/// The server's side of a level policy, round by round.
class ServerLevelPolicy
{
  public:
    explicit ServerLevelPolicy(LevelPolicyConfig config);

    /// A round starts at `startS` with these sampled clients (`samples`: their example
    /// counts, the aggregation weights; `clients`: their ids, which AdaGQ needs): the level
    /// each is to use, in the same order.
    std::vector<uint32_t> Assign(std::span<const uint32_t> samples,
                                 std::span<const uint32_t> clients = {},
                                 double startS = 0.0);

    /// An accepted update of the current round reported `loss` (its client's loss of the
    /// round's model) and carries `samples` examples.
    void LossReported(uint32_t samples, double loss);

    /// An accepted update of the current round from `client`, `frameBytes` long, arrived at
    /// `arrivalS` (AdaGQ's response times; the other rules ignore it).
    void UpdateArrived(uint32_t client, uint64_t frameBytes, double arrivalS);

    /// The round closed: its loss reports (their sample-weighted mean, as the sampled
    /// clients' weights sum to one) feed the rule, which sets the next round's level. A round
    /// without reports leaves the level and the rule's history as they were.
    /// `aggregateNorm`: the norm of the round's aggregated update (AdaGQ; NaN: none).
    void RoundClosed(double aggregateNorm = NAN);

    /// The level of the next Assign (DAdaQuant: before its client split).
    uint32_t Level() const
    {
        return m_level;
    }

  private:
    LevelPolicyConfig m_config;
    std::optional<DadaquantSchedule> m_dadaquant;
    std::optional<AdaquantflSchedule> m_adaquantfl;
    std::optional<AdagqServer> m_adagq;
    uint32_t m_level = 1;
    double m_lossSum = 0.0;
    double m_weightSum = 0.0;
};

} // namespace fedran::control

#endif
