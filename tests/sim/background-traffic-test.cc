// Background traffic (backhaul.background): on an otherwise idle link it fills its share of the
// capacity, its on/off process has the configured duty cycle and period lengths, the same seed
// repeats it exactly, and an upload sharing the link with it takes longer.

#include "bulk-transfer.h"
#include "link-harness.h"
#include "sim-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

using nlohmann::json;

constexpr double kWireBytes = 1400 + 30; // default payload + UDP, IPv4 and PPP headers

TEST(BackgroundTraffic, ConstantLoadIsItsShareOfTheNominalCapacity)
{
    LinkRunOptions options;
    options.upload = false;
    options.durationS = 3.0;
    const std::vector<LinkSample> p2p = RunLink(
        {{"type", "p2p"}, {"rate", "20Mbps"}, {"delay", "5ms"}, {"background", {{"load", 0.3}}}},
        options);
    // Skip the first interval: the first packets are still in flight for 5 ms.
    EXPECT_NEAR(MeanThroughput(p2p, 0.5, 3.0), 0.3 * 20e6, 0.01 * 0.3 * 20e6);
    double downlink = 0.0;
    for (const LinkSample& s : p2p)
    {
        downlink += s.startS >= 0.5 ? s.downlinkBps / 5 : 0.0; // 5 intervals from 0.5 s
    }
    EXPECT_NEAR(downlink, 0.3 * 20e6, 0.01 * 0.3 * 20e6); // "both" is the default

    // A microwave hop's nominal capacity is its clear-sky rate: 256-QAM at 7 MHz, 42 Mbit/s.
    const std::vector<LinkSample> radio =
        RunLink({{"type", "microwave"},
                 {"bandwidth_mhz", 7},
                 {"snr_db", 30},
                 {"fade", {{"type", "none"}}},
                 {"background", {{"load", 0.5}, {"direction", "uplink"}}}},
                options);
    EXPECT_NEAR(MeanThroughput(radio, 0.5, 3.0), 0.5 * 42e6, 0.01 * 0.5 * 42e6);
    for (const LinkSample& s : radio)
    {
        EXPECT_EQ(s.downlinkBps, 0.0) << "uplink-only background reached the client";
    }
}

/// Lengths in seconds of the runs of intervals with (on) and without (off) traffic, the first
/// and last (cut by the run's ends) left out.
void
RunLengths(const std::vector<LinkSample>& samples,
           double intervalS,
           std::vector<double>& on,
           std::vector<double>& off)
{
    size_t start = 0;
    for (size_t i = 1; i <= samples.size(); ++i)
    {
        const bool was = samples[i - 1].throughputBps > 0;
        if (i == samples.size() || (samples[i].throughputBps > 0) != was)
        {
            if (start > 0 && i < samples.size())
            {
                (was ? on : off).push_back((i - start) * intervalS);
            }
            start = i;
        }
    }
}

double
Mean(const std::vector<double>& values)
{
    double sum = 0.0;
    for (double v : values)
    {
        sum += v;
    }
    return values.empty() ? 0.0 : sum / values.size();
}

TEST(BackgroundTraffic, OnOffHasTheConfiguredDutyCycleAndPeriods)
{
    // Mean on 1 s, off 1 s: it sends at 0.3 x 2 = 0.6 x the capacity while on.
    LinkRunOptions options;
    options.upload = false;
    options.durationS = 1000.0;
    options.intervalS = 0.01;
    const std::vector<LinkSample> samples = RunLink({{"type", "p2p"},
                                                     {"rate", "10Mbps"},
                                                     {"delay", "1ms"},
                                                     {"background",
                                                      {{"load", 0.3},
                                                       {"pattern", "on_off"},
                                                       {"mean_on_s", 1},
                                                       {"mean_off_s", 1},
                                                       {"direction", "uplink"}}}},
                                                    options);
    // The fraction of time on over T = 1000 s of Exp(1) on and off periods has standard
    // deviation 1 / (2 sqrt(T)) = 0.016 around 0.5: 3 sigma is 9.5% of the mean rate.
    EXPECT_NEAR(MeanThroughput(samples, 0.0, 1000.0), 0.3 * 10e6, 0.095 * 0.3 * 10e6);
    // ~500 periods of each kind: the mean of 500 Exp(1) draws is within 0.13 s (3 sigma) of
    // 1 s; 10 ms sampling adds up to one interval to an on run and takes it from an off run.
    std::vector<double> on;
    std::vector<double> off;
    RunLengths(samples, options.intervalS, on, off);
    EXPECT_GT(on.size(), 400u);
    EXPECT_NEAR(Mean(on), 1.0, 0.15);
    EXPECT_NEAR(Mean(off), 1.0, 0.15);
    // While on, it sends at the peak rate, 0.6 x 10 Mbit/s (a 10 ms interval holds 5 or 6
    // packets of 11440 bits).
    uint32_t full = 0;
    for (const LinkSample& s : samples)
    {
        full += s.throughputBps >= 4 * kWireBytes * 8 / options.intervalS ? 1 : 0;
        EXPECT_LE(s.throughputBps, 6 * kWireBytes * 8 / options.intervalS);
    }
    EXPECT_GT(full, samples.size() / 3);
}

TEST(BackgroundTraffic, SameSeedSameTrafficOtherSeedOther)
{
    const json backhaul = {
        {"type", "p2p"},
        {"rate", "10Mbps"},
        {"background",
         {{"load", 0.2}, {"pattern", "on_off"}, {"mean_on_s", 0.5}, {"mean_off_s", 0.5}}}};
    LinkRunOptions options;
    options.durationS = 8.0;
    options.intervalS = 0.1;
    auto throughputs = [&](uint64_t seed) {
        options.seed = seed;
        std::vector<double> values;
        for (const LinkSample& s : RunLink(backhaul, options))
        {
            values.push_back(s.throughputBps);
            values.push_back(s.downlinkBps);
        }
        return values;
    };
    const std::vector<double> a = throughputs(1);
    EXPECT_EQ(a, throughputs(1));
    EXPECT_NE(a, throughputs(2));
}

TEST(BackgroundTraffic, AnUploadSharingTheLinkTakesLonger)
{
    // 4 MB over 20 Mbit/s, alone and next to constant UDP at half the capacity, which does
    // not back off: TCP gets at most the other half.
    ScenarioConfig config = BulkConfig(1, "20Mbps", "5ms", "1Gbps", "1ms");
    const double alone = RunBulkUploads(config, 4'000'000).doneS;
    BackgroundConfig background;
    background.load = 0.5;
    config.groups[0].backhaul.background = background;
    const double shared = RunBulkUploads(config, 4'000'000).doneS;
    ASSERT_GT(alone, 0.0);
    ASSERT_GT(shared, 0.0);
    EXPECT_GE(shared, 1.6 * alone) << alone << " s alone, " << shared << " s shared";
    EXPECT_LE(shared, 2.5 * alone) << "TCP should still get the capacity left over";
}

/// One client uploading a 1.6 MB update (softmax over 40000 synthetic features) over
/// 10 Mbit/s, for two rounds.
json
LargeUpdateScenario()
{
    json scenario = TinyScenario(1, 1, 2);
    scenario["data"] = {
        {"dataset", "synthetic"},
        {"synthetic",
         {{"features", 40000}, {"classes", 10}, {"samples", {{"type", "equal"}, {"base", 40}}}}}};
    scenario["training"]["batch_size"] = 20;
    scenario["clients"]["groups"][0]["backhaul"] = {{"type", "p2p"},
                                                    {"rate", "10Mbps"},
                                                    {"delay", "5ms"}};
    scenario["output"] = {{"link_sample_s", 0.5}};
    return scenario;
}

double
UploadSeconds(const std::filesystem::path& run)
{
    double total = 0.0;
    for (auto& row : ReadCsv(run / "clients.csv"))
    {
        EXPECT_EQ(row["status"], "completed");
        total += std::stod(row["upload_end_s"]) - std::stod(row["upload_start_s"]);
    }
    return total;
}

TEST(BackgroundTraffic, FlUploadsSlowDownButFlByteCountsLeaveItOut)
{
    TempDir dir("background");
    json scenario = LargeUpdateScenario();
    WriteFile(dir.Path() / "alone.json", scenario.dump());
    scenario["clients"]["groups"][0]["backhaul"]["background"] = {{"load", 0.5}};
    WriteFile(dir.Path() / "shared.json", scenario.dump());
    for (const char* run : {"alone", "shared", "again"})
    {
        const std::string file = std::string(run) == "alone" ? "alone.json" : "shared.json";
        CommandResult r = RunFedran("run " + file + " --out " + run + " --quiet", dir.Path());
        ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    }
    const auto alone = dir.Path() / "alone";
    const auto shared = dir.Path() / "shared";
    // Measured 2.71 s alone (1.37 s and 1.34 s), 4.66 s next to UDP at half the link's rate.
    EXPECT_GE(UploadSeconds(shared), 1.6 * UploadSeconds(alone));
    // rounds.csv counts FL packets only: about the same wire bytes with or without 5 Mbit/s
    // of background for ~10 s (which would add ~6 MB).
    for (const char* column : {"uplink_wire_bytes", "downlink_wire_bytes"})
    {
        const double a = SumColumn(alone / "rounds.csv", column);
        EXPECT_NEAR(SumColumn(shared / "rounds.csv", column), a, 0.05 * a) << column;
    }
    // links.csv is link throughput: the background shows in every sample.
    for (auto& row : ReadCsv(shared / "links.csv"))
    {
        if (row["link"] == "client-0-up" || row["link"] == "client-0-down")
        {
            EXPECT_GE(std::stod(row["throughput_bps"]), 0.49 * 10e6) << row["time_s"];
        }
    }
    ExpectSameTraces(shared, dir.Path() / "again", {"rounds.csv", "clients.csv", "links.csv"});
}

TEST(BackgroundTraffic, BadKeysExitTwoNamingThePathAndWriteNothing)
{
    TempDir dir("background-bad");
    json scenario = LargeUpdateScenario();
    scenario["clients"]["groups"][0]["backhaul"]["background"] = {{"load", 0.5},
                                                                  {"paternn", "on_off"}};
    WriteFile(dir.Path() / "s.json", scenario.dump());
    CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("clients.groups.0.backhaul.background.paternn"), std::string::npos)
        << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "out"));
}

} // namespace
} // namespace fedran::test
