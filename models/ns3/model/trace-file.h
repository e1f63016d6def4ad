#ifndef FEDRAN_MODELS_NS3_MODEL_TRACE_FILE_H
#define FEDRAN_MODELS_NS3_MODEL_TRACE_FILE_H

#include <string>
#include <vector>

namespace ns3
{

/// One step of a link trace: from startS (within the period) until the next step.
struct TraceStep
{
    double startS = 0.0;
    double rateBps = 0.0;
    double delayS = -1.0; ///< < 0: the link's default delay
    double loss = -1.0;   ///< < 0: the link's default loss
};

/// A link trace, replayed in a loop of periodS seconds.
struct LinkTrace
{
    std::vector<TraceStep> steps;
    double periodS = 0.0;

    /// Time-weighted mean rate over one period.
    double MeanRate() const;
};

/**
 * Reads a CSV trace: lines time_s,rate_bps[,delay_ms,loss]; an optional header line (first
 * cell not a number); blank lines skipped. Times start at 0 and increase; each row holds until
 * the next, the last as long as the one before it (1 s for a single row). Throws
 * std::invalid_argument "FILE:LINE: reason".
 *
 * A header naming a `downlink_rate_bps` column makes the file carry both directions: then the
 * columns are found by their header names (time_s, rate_bps, delay_ms, loss for the uplink,
 * downlink_rate_bps, downlink_delay_ms, downlink_loss for the downlink; time_s and both rates
 * required, every name known) and `downlink`, if given, receives the downlink trace (the same
 * times). Without such a column `*downlink` is left empty.
 */
LinkTrace ReadCsvTrace(const std::string& file, LinkTrace* downlink = nullptr);

/**
 * Reads a Mahimahi trace: one integer millisecond timestamp per line (non-decreasing), each a
 * delivery opportunity for one 1500-byte packet; Mahimahi loops at the last timestamp. The
 * opportunities are counted per bin of binS seconds, each bin setting the rate for its span.
 * Throws std::invalid_argument "FILE:LINE: reason".
 */
LinkTrace ReadMahimahiTrace(const std::string& file, double binS);

} // namespace ns3

#endif
