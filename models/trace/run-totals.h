#ifndef FEDRAN_MODELS_TRACE_RUN_TOTALS_H
#define FEDRAN_MODELS_TRACE_RUN_TOTALS_H

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace fedran
{

/// Totals over the whole run, for run.json and the progress line.
struct RunTotals
{
    uint32_t rounds = 0;
    double finalAccuracy = 0.0; ///< NaN for a forecasting task
    /// Forecasting tasks: the last round's test_nrmse; NaN for classification.
    double finalNrmse = std::numeric_limits<double>::quiet_NaN();
    double simTimeS = 0.0;
    uint64_t uplinkPayloadBytes = 0;
    uint64_t downlinkPayloadBytes = 0;
    uint64_t uplinkWireBytes = 0;
    uint64_t downlinkWireBytes = 0;
    uint32_t clientsJoined = 0;   ///< clients joined when the first round started
    uint32_t clientsExpected = 0; ///< clients on at time 0, whom the first round waited for
    double joinTimeS = 0.0;       ///< when the first round started
    /// Packets the access links transmitted, both directions (background traffic excluded):
    /// the per-site packet count behind the benchmark's packets per wall second.
    uint64_t accessPackets = 0;
    /// privacy.dp: the accountant's steps behind the last round's epsilon (central: rounds;
    /// local: the most-selected site's selections) and the clip norm the last round used.
    uint32_t privacySteps = 0;
    double lastClipNorm = std::numeric_limits<double>::quiet_NaN();
    /// privacy.secure_aggregation: rounds.csv secagg_bytes and secagg_s summed, and the rounds
    /// whose aggregation failed with the reason.
    uint64_t secaggBytes = 0;
    double secaggS = 0.0;
    std::vector<std::pair<uint32_t, std::string>> secaggFailures;

    /// Wall-clock cost of the run (run.json "timing"; never in the traces, which stay
    /// byte-identical between runs).
    struct Timing
    {
        double prepareWallS = 0.0;  ///< loading and partitioning the data, building the model
        double setupWallS = 0.0;    ///< building network and applications, before the first event
        double joinWallS = 0.0;     ///< first event to the first round's start
        double simulateWallS = 0.0; ///< first event to the last
        std::vector<double> roundWallS; ///< each round's wall time (round 1 from the join)
        /// CPU seconds of the whole process (all threads) over the same spans: on a loaded
        /// machine wall time includes waiting for a core, CPU time does not.
        double simulateCpuS = 0.0;
        std::vector<double> roundCpuS;
        uint64_t events = 0; ///< simulator events executed
    } timing;
    /// The signal (SIGINT, SIGTERM) that stopped the run before its last round; 0 if none.
    int stopSignal = 0;
};

} // namespace fedran

#endif
