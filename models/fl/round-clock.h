#ifndef FEDRAN_MODELS_FL_ROUND_CLOCK_H
#define FEDRAN_MODELS_FL_ROUND_CLOCK_H

// Where a round is expected to end, as one client can tell from its own clock: when each
// round's model reached it and when its own updates were acknowledged. No clock is shared
// with the server or the other clients; only differences of this client's readings are used.

#include <cstdint>
#include <optional>

namespace fedran::control
{

/// The previous round as this client saw it, on a clock starting at the round's start.
struct RoundEndEstimate
{
    /// When the other clients' updates had arrived (the round would have closed without this
    /// client), if the client can tell it was not the one the round waited for.
    std::optional<double> othersEndS;
    /// The smallest gap seen between this client's update arriving and the next round's
    /// model leaving the server: an upper bound of the server's turnaround (aggregation,
    /// evaluation), 0 before any.
    double turnaroundS = 0.0;
};

class RoundClock
{
  public:
    /// A gap within this share of the round length above the turnaround means the round
    /// waited for nobody else: this client closed it (or cannot tell that it did not).
    static constexpr double kLastTolerance = 0.05;

    /// The model of `round` left the server at `startS` (the client's clock: its first byte's
    /// arrival less half an RTT).
    void RoundStarted(uint32_t round, double startS);

    /// This client's update of `round` reached the server at `arrivedS` (its acknowledgement
    /// less half an RTT).
    void UpdateArrived(uint32_t round, double arrivedS);

    /// What the last pair of consecutive rounds showed (nothing known: no othersEndS).
    const RoundEndEstimate& Estimate() const
    {
        return m_estimate;
    }

  private:
    uint32_t m_startRound = 0;
    double m_startS = 0.0;
    uint32_t m_arrivedRound = 0;
    double m_arrivedS = 0.0;
    std::optional<double> m_minGapS;
    RoundEndEstimate m_estimate;
};

} // namespace fedran::control

#endif
