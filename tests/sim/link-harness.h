#ifndef FEDRAN_TESTS_SIM_LINK_HARNESS_H
#define FEDRAN_TESTS_SIM_LINK_HARNESS_H

// Runs the simulator's topology with one client whose backhaul is a given JSON object, a
// saturating TCP upload from the client to the server, and samples the link every interval:
// what the router received from the client (wire bytes, so a saturated link shows its
// capacity), the link's capacity and SNR.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

namespace fedran::test
{

struct LinkSample
{
    double startS = 0.0;        ///< start of the interval
    double timeS = 0.0;         ///< end of the interval
    double throughputBps = 0.0; ///< wire bits received by the router in the interval / length
    double downlinkBps = 0.0;   ///< wire bits received by the client in the interval / length
    uint64_t capacityBps = 0;   ///< at the end of the interval
    double snrDb = 0.0;         ///< at the end of the interval (NaN if none)
};

struct LinkRunOptions
{
    double durationS = 4.0;
    double intervalS = 0.5;
    uint64_t seed = 1;
    bool upload = true; ///< a saturating TCP upload for the whole run
};

/// `backhaul` is a clients.groups[].backhaul object; it is validated like a scenario's.
std::vector<LinkSample> RunLink(const nlohmann::json& backhaul, const LinkRunOptions& options);

/// Mean throughput of the samples whose interval lies within [fromS, toS].
double MeanThroughput(const std::vector<LinkSample>& samples, double fromS, double toS);

} // namespace fedran::test

#endif
