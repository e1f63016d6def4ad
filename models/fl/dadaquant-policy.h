#ifndef FEDRAN_MODELS_FL_DADAQUANT_POLICY_H
#define FEDRAN_MODELS_FL_DADAQUANT_POLICY_H

// DAdaQuant's quantization-level rules (Hoenig, Zhao, Mullins, ICML 2022), on QSGD levels q:
//
// Time-adaptive: the server estimates the global loss from the sampled clients' losses of the
// round's model, G_t = sum_{k in S_t} w_k F_k(p_t), smooths it, E_t = psi E_{t-1} + (1 - psi)
// G_t (E_1 = G_1), starts at q_1 = q_min and doubles q (up to q_max) at round t when the
// smoothed loss has not fallen over the last phi rounds (E_t - E_{t-phi} > 0, the reference
// code's test); after each doubling q holds for at least phi rounds. Defaults: psi = 0.9,
// phi = rounds / 10.
//
// Client-adaptive (Thm 1): at the variance of a static level q, the sampled clients' levels
// that minimise sum q_i are q_i = sqrt(a / b) w_i^{2/3}, a = sum_j w_j^{2/3},
// b = sum_j w_j^2 / q^2, deployed as max(1, round(.)). The rule is invariant to the scale of w.
//
// Only the rules live here (no ns-3, no transport): docs/adaptive-bitrate.md says what feeds
// them.

#include <cstdint>
#include <deque>
#include <span>
#include <vector>

namespace fedran::control
{

struct DadaquantConfig
{
    double psi = 0.9;  ///< EMA weight of the previous smoothed loss
    uint32_t phi = 1;  ///< rounds the smoothed loss must fail to fall over; also the hold
    uint32_t qMin = 1; ///< the first round's level
    uint32_t qMax = 8; ///< the doubling stops here
};

/// phi's default: rounds / 10, at least 1.
uint32_t DadaquantDefaultPhi(uint32_t rounds);

/// The time-adaptive level q_t, round by round.
class DadaquantSchedule
{
  public:
    explicit DadaquantSchedule(DadaquantConfig config);

    /// Feeds the next round's loss estimate G_t (the sampled clients' weighted loss of the
    /// round's model, before training) and returns that round's level q_t.
    uint32_t Next(double lossEstimate);

    /// The smoothed loss after the last Next.
    double Smoothed() const
    {
        return m_ema.back();
    }

    uint32_t Level() const
    {
        return m_q;
    }

  private:
    DadaquantConfig m_config;
    /// E_{t-phi} .. E_t: the last phi + 1 smoothed losses.
    std::deque<double> m_ema;
    uint32_t m_round = 0;
    uint32_t m_lastChange = 1; ///< the round q was last set (round 1: q_min)
    uint32_t m_q;
};

/// The client-adaptive split of level `q` over the sampled clients of aggregation weights
/// `weights` (any positive scale): max(1, round(sqrt(a / b) w_i^{2/3})), capped at `cap`.
std::vector<uint32_t> DadaquantClientLevels(std::span<const double> weights,
                                            uint32_t q,
                                            uint32_t cap);

} // namespace fedran::control

#endif
