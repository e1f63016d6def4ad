// The adaptive downlink end to end over ns-3 TCP: a site whose downlink runs at 20 kbit/s
// receives a 2-bit model frame once its first download has been measured, while a site at
// 50 Mbit/s keeps the whole model; with downlink_reference client_view the server's mirror of
// each site's model equals the site's own copy bit for bit after every round; the traces do not
// depend on the thread count.

#include "models/fl/round-coordinator.h"
#include "models/ns3/model/fl-client-app.h"
#include "models/ns3/model/fl-server-app.h"
#include "sim-test-util.h"
#include "simulator/fl-experiment.h"
#include "simulator/scenario/scenario.h"

#include <gtest/gtest.h>
#include <ns3/node-list.h>

#include <algorithm>
#include <cmath>

namespace fedran::test
{
namespace
{

using nlohmann::json;

/// Two sites, one of them on a 20 kbit/s downlink (its uplink at 1 Mbit/s), the other at
/// 50 Mbit/s both ways; the downlink a ladder of none / 8-bit / 2-bit.
json
SlowDownlink(uint32_t rounds, const std::string& reference)
{
    json s = TinyScenario(2, 2, rounds);
    json slow = s["clients"]["groups"][0];
    slow["name"] = "slow";
    slow["count"] = 1;
    slow["backhaul"]["rate"] = "1Mbps";
    slow["backhaul"]["rate_down"] = "20kbps";
    json fast = s["clients"]["groups"][0];
    fast["name"] = "fast";
    fast["count"] = 1;
    s["clients"]["groups"] = {slow, fast};
    s["compression"] = {{"downlink_reference", reference},
                        {"downlink",
                         {{"type", "adaptive"},
                          {"ladder",
                           {{{"type", "none"}},
                            {{"type", "quantization"}, {"bits", 8}},
                            {{"type", "quantization"}, {"bits", 2}}}}}}};
    return s;
}

TEST(AdaptiveDownlinkE2e, ANarrowDownlinkGetsACoarserModelAndTracesIgnoreThreads)
{
    TempDir dir("adaptive-downlink");
    WriteFile(dir.Path() / "s.json", SlowDownlink(4, "model").dump());
    for (const char* threads : {"1", "2"})
    {
        CommandResult r =
            RunFedran(std::string("run s.json --quiet --out t") + threads + " --threads " + threads,
                      dir.Path());
        ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    }
    for (const char* file : {"rounds.csv", "clients.csv"})
    {
        EXPECT_EQ(ReadFile(dir.Path() / "t1" / file), ReadFile(dir.Path() / "t2" / file)) << file;
    }
    std::map<int, std::map<std::string, std::pair<std::string, uint64_t>>> frames;
    for (auto& row : ReadCsv(dir.Path() / "t1" / "clients.csv"))
    {
        EXPECT_EQ(row["status"], "completed");
        frames[std::stoi(row["round"])][row["group"]] = {
            row["downlink_codec"],
            std::stoull(row["downlink_payload_bytes"])};
    }
    ASSERT_EQ(frames.size(), 4u);
    // Round 1: nothing measured, the whole model for both.
    EXPECT_EQ(frames[1]["slow"].first, "none[0]");
    EXPECT_EQ(frames[1]["fast"].first, "none[0]");
    for (int round = 2; round <= 4; ++round)
    {
        EXPECT_EQ(frames[round]["slow"].first, "quantization[2]") << round;
        EXPECT_EQ(frames[round]["fast"].first, "none[0]") << round;
        EXPECT_LT(frames[round]["slow"].second * 10, frames[round]["fast"].second);
    }
    // The 2-bit model is ~12 s shorter to download at 20 kbit/s: rounds 2-4 are short.
    const auto rounds = ReadCsv(dir.Path() / "t1" / "rounds.csv");
    EXPECT_GT(std::stod(rounds[0].at("round_duration_s")), 10.0);
    for (size_t i = 1; i < rounds.size(); ++i)
    {
        EXPECT_LT(std::stod(rounds[i].at("round_duration_s")), 3.0);
    }
}

/// The applications of the running simulation, from ns-3's node list.
template<typename App>
std::vector<ns3::Ptr<App>>
Apps()
{
    std::vector<ns3::Ptr<App>> apps;
    for (uint32_t n = 0; n < ns3::NodeList::GetNNodes(); ++n)
    {
        ns3::Ptr<ns3::Node> node = ns3::NodeList::GetNode(n);
        for (uint32_t a = 0; a < node->GetNApplications(); ++a)
        {
            if (ns3::Ptr<App> app = ns3::DynamicCast<App>(node->GetApplication(a)))
            {
                apps.push_back(app);
            }
        }
    }
    return apps;
}

TEST(AdaptiveDownlinkE2e, ClientViewMirrorsEqualTheSitesModelsAndDecodingStaysWithinTheRung)
{
    json scenario = SlowDownlink(4, "client_view");
    ValidateScenario(scenario);
    ns3::FlExperiment experiment(ToConfig(scenario));
    experiment.Prepare();
    TempDir dir("adaptive-downlink-view");
    const size_t d = experiment.Task().model->Layout().TotalSize();
    // The model the round's frames encoded (the global model when the previous round was
    // reported; round 1's initial model is not seen from here) and each site's copy before.
    std::vector<float> sent(d, 0.0f);
    std::map<uint32_t, std::vector<float>> before;
    uint32_t checked = 0;
    uint32_t lossy = 0;
    experiment.Run(dir.Path().string(), [&](const RoundRecord& record, const RunTotals&) {
        const auto servers = Apps<ns3::FlServerApp>();
        ASSERT_EQ(servers.size(), 1u);
        const auto* coordinator =
            dynamic_cast<const RoundCoordinator*>(servers[0]->GetCoordinator());
        ASSERT_NE(coordinator, nullptr);
        for (const auto& client : Apps<ns3::FlClientApp>())
        {
            const uint32_t id = client->GetClientId();
            const std::span<const float> mirror = coordinator->ClientView(id);
            const std::span<const float> held = client->HeldModel();
            ASSERT_EQ(mirror.size(), d);
            ASSERT_EQ(held.size(), d);
            EXPECT_TRUE(std::equal(mirror.begin(), mirror.end(), held.begin()))
                << "client " << id << " round " << record.round;
            ++checked;
            // The frame carried sent − (the copy before): decoding it lands within one 2-bit
            // step, 2 max |difference| / 3 (quantization-codec.cc), of it (exactly, up to
            // float addition, for none).
            std::vector<float>& copy = before.try_emplace(id, d, 0.0f).first->second;
            double scale = 0.0;
            double worst = 0.0;
            for (size_t i = 0; i < d; ++i)
            {
                scale = std::max(scale, std::abs(double(sent[i] - copy[i])));
                worst = std::max(worst, std::abs(double(held[i]) - double(sent[i])));
            }
            const bool coarse = id == 0 && record.round > 1;
            const double bound = coarse ? 2.0 * scale / 3.0 * 1.0001 + 1e-6 : 1e-6;
            if (record.round > 1)
            {
                EXPECT_LE(worst, bound) << "client " << id << " round " << record.round;
            }
            lossy += coarse && worst > 1e-6;
            copy.assign(held.begin(), held.end());
        }
        sent = coordinator->GlobalParams(); // what the next round's frames encode
    });
    EXPECT_EQ(checked, 8u); // 2 sites × 4 rounds
    EXPECT_EQ(lossy, 3u);   // the slow site's 2-bit rounds are lossy
    const auto clients = ReadCsv(dir.Path() / "clients.csv");
    ASSERT_EQ(clients.size(), 8u);
    EXPECT_EQ(clients[6].at("downlink_codec"), "quantization[2]");
    EXPECT_EQ(clients[7].at("downlink_codec"), "none[0]");
}

} // namespace
} // namespace fedran::test
