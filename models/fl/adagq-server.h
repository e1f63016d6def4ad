#ifndef FEDRAN_MODELS_FL_ADAGQ_SERVER_H
#define FEDRAN_MODELS_FL_ADAGQ_SERVER_H

// AdaGQ as the server runs it (level-policy.h wires it in; the rules are adagq-policy.h): what
// the server measures in each round and how that becomes each sampled client's bit width.
//
// - L_k: the sample-weighted mean of the loss reports of round k's accepted updates, i.e. the
//   sampled clients' loss of round k's model (loss-report.h).
// - T_k: from the start of round k (its model frames leave) to the start of round k + 1, on
//   the server's clock: the round, its stragglers, decoding, aggregation and evaluation.
// - R_k = (L_k - L_{k+1}) / T_k is the progress per second of round k's update, sent at round
//   k's mean width; it is known when round k + 1 closes (its reports measure round k + 1's
//   model). The width's sign search compares the last two such rates
//   (AdagqNextMeanBitsMeasured): no probe at s / 2 is evaluated.
// - ||g_k||: the norm of the aggregated update the server computed in round k.
// - Each client's finish time: the server sees when its update arrived and knows when the
//   round's model left, so a client's response time is download + compute + encode + upload.
//   Two responses of the same client at different update sizes fit response = fixed +
//   bytes x seconds-per-byte (its link and compute taken as unchanged between them); the
//   fixed part stands for E[t_cp] and seconds-per-byte x bytes-per-bit-of-width for E[P / r].
//   Until a client has such a fit its whole response counts as upload time.

#include "models/fl/adagq-policy.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace fedran::control
{

struct AdagqServerConfig
{
    double lambdaG = 1.0;   ///< the gradient-norm weight
    uint32_t startBits = 8; ///< the first mean width
    uint32_t maxBits = 8;   ///< the widest rung (level 2^maxBits - 1)
};

class AdagqServer
{
  public:
    explicit AdagqServer(AdagqServerConfig config);

    /// A round starts at `startS` with these sampled clients: the width of each, in bits, by
    /// equal finish times around the mean width (AdagqClientBits).
    std::vector<uint32_t> Assign(std::span<const uint32_t> clients, double startS);

    /// An accepted update of the current round from `client`, `frameBytes` long, arrived at
    /// `arrivalS`.
    void UpdateArrived(uint32_t client, uint64_t frameBytes, double arrivalS);

    /// The current round closed with this mean loss report (NaN: none) and this aggregated
    /// update norm (NaN or 0: no update): sets the next round's mean width.
    void RoundClosed(double loss, double aggregateNorm);

    /// The mean width of the next Assign.
    double MeanBits() const
    {
        return m_meanBits;
    }

    /// The client's finish-time estimate, if the server has a response of it.
    std::optional<AdagqClientTimes> TimesOf(uint32_t client) const;

  private:
    /// What the server knows of one client's response times.
    struct Response
    {
        uint64_t bytes = 0;   ///< the last update's frame bytes
        double seconds = 0.0; ///< its response time
        uint32_t bits = 1;    ///< the width it was sent at
        bool fitted = false;  ///< fixedS and secondsPerByte come from two sizes
        double fixedS = 0.0;
        double secondsPerByte = 0.0;
    };

    /// A closed round whose successor's loss will give its rate.
    struct Closed
    {
        double bits = 0.0;
        double startS = 0.0;
        double loss = 0.0;
    };

    AdagqServerConfig m_config;
    double m_meanBits;
    double m_roundBits = 0.0;                ///< the current round's mean width
    double m_roundStartS = 0.0;              ///< and its start
    std::map<uint32_t, uint32_t> m_assigned; ///< the current round's widths
    std::map<uint32_t, Response> m_responses;
    std::optional<Closed> m_previous; ///< the round before the current one, with its loss
    double m_rate = NAN;              ///< the latest known R
    double m_rateBits = 0.0;          ///< and its width
    double m_earlierRate = NAN;       ///< the R known before it
    double m_earlierBits = 0.0;
    double m_previousNorm = 0.0; ///< ||g|| of the last round with an update
};

} // namespace fedran::control

#endif
