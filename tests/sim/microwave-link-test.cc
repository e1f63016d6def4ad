// The microwave link: capacity follows the modulation table at a fixed SNR, a scripted fade
// lowers throughput to the lower modulation's rate, a fade below the lowest threshold stops
// traffic until it lifts, and rain fading is reproducible from the seed.

#include "link-harness.h"
#include "models/ns3/model/backhaul-link.h"
#include "models/ns3/model/microwave-link.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fedran::test
{
namespace
{

using nlohmann::json;

constexpr double kBandwidthMhz = 3.5;
constexpr double kEfficiency = 0.75;

double
RateOfBits(double bits)
{
    return kBandwidthMhz * 1e6 * bits * kEfficiency;
}

json
Radio(double snrDb)
{
    return {{"type", "microwave"},
            {"bandwidth_mhz", kBandwidthMhz},
            {"efficiency", kEfficiency},
            {"snr_db", snrDb},
            {"delay", "1ms"}};
}

TEST(MicrowaveLink, CapacityFollowsTheModulationTableAtAFixedSnr)
{
    // SNR -> the default table's bits per symbol (thresholds 9, 15.5, 18.5, ... 39.5 dB).
    const std::pair<double, double> cases[] = {{10, 2}, {20, 5}, {30, 8}, {45, 12}};
    for (const auto& [snr, bits] : cases)
    {
        LinkRunOptions options;
        options.durationS = 2.0;
        auto samples = RunLink(Radio(snr), options);
        ASSERT_FALSE(samples.empty());
        EXPECT_EQ(samples.back().capacityBps, static_cast<uint64_t>(RateOfBits(bits))) << snr;
        EXPECT_DOUBLE_EQ(samples.back().snrDb, snr);
        // A saturating upload fills the link (after slow start): wire throughput = capacity.
        const double measured = MeanThroughput(samples, 1.0, 2.0);
        EXPECT_NEAR(measured, RateOfBits(bits), 0.05 * RateOfBits(bits)) << "SNR " << snr;
    }
}

TEST(MicrowaveLink, ScriptedFadeLowersThroughputToTheLowerModulation)
{
    json radio = Radio(42);                                          // 4096-QAM
    radio["fade"] = {{"type", "script"}, {"points", {{2.0, 15.0}}}}; // 27 dB: 128-QAM
    LinkRunOptions options;
    options.durationS = 4.0;
    auto samples = RunLink(radio, options);
    const double before = MeanThroughput(samples, 1.0, 2.0);
    const double after = MeanThroughput(samples, 2.5, 4.0);
    EXPECT_NEAR(before, RateOfBits(12), 0.05 * RateOfBits(12));
    EXPECT_NEAR(after, RateOfBits(7), 0.05 * RateOfBits(7));
    EXPECT_EQ(samples.back().capacityBps, static_cast<uint64_t>(RateOfBits(7)));
    EXPECT_DOUBLE_EQ(samples.back().snrDb, 27.0);
}

TEST(MicrowaveLink, FadeBelowTheLowestThresholdStopsTrafficUntilItLifts)
{
    json radio = Radio(30);
    // 30 - 25 = 5 dB < 9 dB (QPSK): out from 1 s to 3 s.
    radio["fade"] = {{"type", "script"}, {"points", {{1.0, 25.0}, {3.0, 0.0}}}};
    LinkRunOptions options;
    options.durationS = 6.0;
    auto samples = RunLink(radio, options);
    EXPECT_GT(MeanThroughput(samples, 0.5, 1.0), 0.5 * RateOfBits(8));
    // What was already on the wire at 1 s arrives within a packet time; nothing after.
    EXPECT_EQ(MeanThroughput(samples, 1.5, 3.0), 0.0);
    for (const LinkSample& s : samples)
    {
        if (s.timeS > 1.0 && s.timeS < 3.0)
        {
            EXPECT_EQ(s.capacityBps, 0u) << s.timeS;
        }
    }
    // TCP recovers once its retransmission timer fires after the fade.
    EXPECT_GT(MeanThroughput(samples, 5.0, 6.0), 0.8 * RateOfBits(8));
}

TEST(MicrowaveLink, RainFadeIsReproducibleFromTheSeed)
{
    json radio = Radio(40);
    radio["fade"] = {{"type", "rain"},
                     {"median_db", 10},
                     {"sigma", 0.8},
                     {"correlation_s", 0.5},
                     {"mean_rain_s", 1},
                     {"mean_dry_s", 0.5},
                     {"step_s", 0.05}};
    LinkRunOptions options;
    options.durationS = 3.0;
    options.intervalS = 0.1;
    auto trace = [&](uint64_t seed) {
        options.seed = seed;
        std::vector<double> values;
        for (const LinkSample& s : RunLink(radio, options))
        {
            values.push_back(s.snrDb);
            values.push_back(s.throughputBps);
            values.push_back(static_cast<double>(s.capacityBps));
        }
        return values;
    };
    const std::vector<double> first = trace(5);
    EXPECT_EQ(trace(5), first);
    EXPECT_NE(trace(6), first);
    // The fade really moves the SNR (it is not stuck at clear sky).
    double lowest = 40;
    for (size_t i = 0; i < first.size(); i += 3)
    {
        lowest = std::min(lowest, first[i]);
    }
    EXPECT_LT(lowest, 35.0);
}

TEST(MicrowaveLink, PresetsGiveTheirDocumentedClearSkySnr)
{
    fedran::LinkConfig config;
    config.type = "microwave";
    config.path = "clients.groups.0.backhaul";
    config.spec = {{"type", "microwave"}, {"preset", "e_band"}};
    ns3::MicrowaveParams eBand = ns3::MicrowaveLink::Resolve(config);
    EXPECT_NEAR(eBand.clearSkySnrDb, 44.5, 0.1);
    EXPECT_EQ(eBand.fade, "rain");
    EXPECT_DOUBLE_EQ(eBand.bandwidthHz, 250e6);
    config.spec = {{"type", "microwave"}, {"preset", "6_ghz"}, {"distance_km", 100}};
    ns3::MicrowaveParams longHop = ns3::MicrowaveLink::Resolve(config);
    EXPECT_NEAR(longHop.clearSkySnrDb, 52.25 - 20 * std::log10(2.0), 0.1);
    EXPECT_NEAR(longHop.delayS, 100 / 299792.458, 1e-9);
}

TEST(MicrowaveLink, BadTablesAndFadesNameTheKey)
{
    fedran::LinkConfig config;
    config.type = "microwave";
    config.path = "clients.groups.0.backhaul";
    config.spec = {{"type", "microwave"},
                   {"modulations", {{{"snr_db", 10}, {"bits", 2}}, {{"snr_db", 10}, {"bits", 4}}}}};
    try
    {
        ns3::CheckBackhaulLink(config);
        FAIL() << "no error";
    }
    catch (const fedran::ScenarioError& e)
    {
        EXPECT_NE(std::string(e.what()).find("clients.groups.0.backhaul.modulations.1.snr_db"),
                  std::string::npos)
            << e.what();
    }
    config.spec = {{"type", "microwave"}, {"fade", {{"type", "script"}, {"points", {{1}}}}}};
    EXPECT_THROW(ns3::CheckBackhaulLink(config), fedran::ScenarioError);
    config.spec = {{"type", "microwave"}, {"fade", {{"type", "rain"}, {"median_db", 3}}}};
    EXPECT_THROW(ns3::CheckBackhaulLink(config), fedran::ScenarioError);
}

} // namespace
} // namespace fedran::test
