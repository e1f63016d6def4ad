#ifndef FEDRAN_MODELS_FL_COLLUSION_ORACLE_H
#define FEDRAN_MODELS_FL_COLLUSION_ORACLE_H

// What colluding Byzantine clients (attacks alie and ipm) know of a round: the per-coordinate
// mean and standard deviation of the honest updates. This is the strongest attacker of the
// literature (Baruch et al. 2019, Xie et al. 2020 assume it): it knows which clients the
// server selected, and every honest client's data and starting model. The oracle does not
// read the honest clients' own updates (they are computed on other threads, at other
// simulated times); it trains each honest selected client itself, from the round's global
// model on that client's examples with the client's training settings, and a minibatch order
// of its own (stream kCollusionStreamBase, per round and client). So the statistics are a
// deterministic function of the scenario, the seed and the round, whichever thread asks
// first, and equal in distribution to the honest updates the server receives (with a lossy
// downlink codec the honest clients start from the decoded model instead).
//
// Cost: a round in which a colluding attacker is selected trains its honest clients twice
// (once for real, once here), and the oracle holds the round's global model and two vectors
// of statistics (3 x model size floats) for the last few rounds.

#include "models/fl/byzantine-config.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace fedran
{

struct FederatedTask;

/// The honest updates of one round, as colluders see them.
struct HonestStatistics
{
    std::vector<float> mean;   ///< per coordinate; zeros if no honest client was selected
    std::vector<float> stddev; ///< per coordinate, population standard deviation
    uint32_t honest = 0;       ///< honest clients selected
    uint32_t selected = 0;     ///< clients selected
    uint32_t attackers = 0;    ///< selected clients with an attack active this round
};

/// One round's knowledge; the statistics are computed on the first request.
class CollusionRound
{
  public:
    CollusionRound(uint32_t round,
                   std::vector<float> global,
                   std::vector<uint32_t> honest,
                   uint32_t selected);

    /// Thread-safe; computed once.
    const HonestStatistics& Statistics(const FederatedTask& task) const;

  private:
    uint32_t m_round;
    std::vector<uint32_t> m_honest;
    mutable std::vector<float> m_global; ///< released once the statistics exist
    mutable std::once_flag m_once;
    mutable HonestStatistics m_stats;
};

class CollusionOracle
{
  public:
    /// The server starts `round` from `global` with `selected`; `attacks` per client id
    /// (empty: nobody). Call before any model frame of the round is sent. Keeps nothing for a
    /// round without a colluding attacker among the selected.
    void BeginRound(uint32_t round,
                    std::span<const float> global,
                    const std::vector<uint32_t>& selected,
                    const std::vector<AttackConfig>& attacks);

    /// What colluders of `round` know; nullptr if there is nothing (no colluder was
    /// selected, or the round is long past). Thread-safe.
    std::shared_ptr<const CollusionRound> Round(uint32_t round) const;

  private:
    mutable std::mutex m_mutex;
    std::map<uint32_t, std::shared_ptr<const CollusionRound>> m_rounds;
};

} // namespace fedran

#endif
