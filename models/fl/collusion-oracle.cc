#include "models/fl/collusion-oracle.h"

#include "models/fl/federated-task.h"
#include "models/learning/local-trainer.h"

#include <cmath>

namespace fedran
{

namespace
{

/// Rounds kept for clients that train late (their model arrived after the next round began).
constexpr uint32_t kRoundsKept = 8;

} // namespace

CollusionRound::CollusionRound(uint32_t round,
                               std::vector<float> global,
                               std::vector<uint32_t> honest,
                               uint32_t selected)
    : m_round(round)
    , m_honest(std::move(honest))
    , m_global(std::move(global))
{
    m_stats.honest = static_cast<uint32_t>(m_honest.size());
    m_stats.selected = selected;
    m_stats.attackers = selected - m_stats.honest;
}

const HonestStatistics&
CollusionRound::Statistics(const FederatedTask& task) const
{
    std::call_once(m_once, [&] {
        const size_t size = m_global.size();
        std::vector<double> mean(size, 0.0);
        std::vector<double> m2(size, 0.0);
        double count = 0.0;
        // Welford's update, clients in id order: the same sums whatever thread runs this.
        for (uint32_t client : m_honest)
        {
            Rng rng(task.seed ^ (0x9E3779B97F4A7C15ull * m_round), kCollusionStreamBase + client);
            const ClientExamples examples(task, client);
            const TrainingResult result = TrainLocal(*task.model,
                                                     m_global,
                                                     examples.Data(),
                                                     examples.Rows(),
                                                     task.training,
                                                     m_round,
                                                     rng);
            count += 1.0;
            for (size_t j = 0; j < size; ++j)
            {
                const double x = result.update[j];
                const double delta = x - mean[j];
                mean[j] += delta / count;
                m2[j] += delta * (x - mean[j]);
            }
        }
        m_stats.mean.assign(size, 0.0f);
        m_stats.stddev.assign(size, 0.0f);
        for (size_t j = 0; j < size && count > 0.0; ++j)
        {
            m_stats.mean[j] = static_cast<float>(mean[j]);
            m_stats.stddev[j] = static_cast<float>(std::sqrt(m2[j] / count));
        }
        std::vector<float>().swap(m_global);
    });
    return m_stats;
}

void
CollusionOracle::BeginRound(uint32_t round,
                            std::span<const float> global,
                            const std::vector<uint32_t>& selected,
                            const std::vector<AttackConfig>& attacks)
{
    std::vector<uint32_t> honest;
    bool colluder = false;
    for (uint32_t client : selected)
    {
        const bool attacking = client < attacks.size() && attacks[client].Active(round);
        colluder = colluder || (attacking && attacks[client].Colluding());
        if (!attacking)
        {
            honest.push_back(client);
        }
    }
    std::lock_guard<std::mutex> lock(m_mutex);
    while (!m_rounds.empty() && m_rounds.begin()->first + kRoundsKept <= round)
    {
        m_rounds.erase(m_rounds.begin());
    }
    if (!colluder)
    {
        return;
    }
    m_rounds[round] =
        std::make_shared<const CollusionRound>(round,
                                               std::vector<float>(global.begin(), global.end()),
                                               std::move(honest),
                                               static_cast<uint32_t>(selected.size()));
}

std::shared_ptr<const CollusionRound>
CollusionOracle::Round(uint32_t round) const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_rounds.find(round);
    return it == m_rounds.end() ? nullptr : it->second;
}

} // namespace fedran
