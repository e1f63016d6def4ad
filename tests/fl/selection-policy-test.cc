// server.selection's policies against hand computations of their rules on scripted ledgers
// (losses, round times, upload times), and their key checks.

#include "models/fl/selection-policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace fedran
{
namespace
{

std::unique_ptr<SelectionPolicy>
Make(const nlohmann::json& json, size_t wanted = 1, double deadlineS = 60.0)
{
    return MakeSelectionPolicy(SelectionSpec::Parse(json, "server.selection"),
                               SelectionContext{5, 100, deadlineS, wanted});
}

SelectionRequest
Request(const ClientLedger& ledger, uint32_t round, size_t wanted)
{
    SelectionRequest request;
    request.round = round;
    for (const auto& [client, record] : ledger)
    {
        request.idle.push_back(client);
    }
    request.wanted = wanted;
    request.ledger = &ledger;
    return request;
}

std::vector<uint32_t>
Sorted(std::vector<uint32_t> clients)
{
    std::sort(clients.begin(), clients.end());
    return clients;
}

ClientRecord
Measured(double durationS, uint32_t lastSelected = 1)
{
    ClientRecord r;
    r.samples = 10;
    r.durationS = r.meanDurationS = durationS;
    r.lastSelected = lastSelected;
    return r;
}

TEST(Selection, RandomIsThePartialFisherYatesOfTheServersStream)
{
    ClientLedger ledger{{0, {}}, {1, {}}, {2, {}}, {3, {}}, {4, {}}};
    SelectionRequest request = Request(ledger, 1, 2);
    std::vector<uint32_t> draws{3, 4}; // swap 0<->3, then 1<->4
    size_t next = 0;
    request.drawInteger = [&](uint32_t lo, uint32_t hi) {
        EXPECT_EQ(hi, 4u);
        EXPECT_EQ(lo, next);
        return draws[next++];
    };
    const Selection s = Make({{"type", "random"}})->Select(request);
    EXPECT_EQ(s.clients, (std::vector<uint32_t>{3, 4}));
    EXPECT_TRUE(s.scores.empty());
}

TEST(Selection, NetworkTakesUnmeasuredThenShortestPredictedRoundTime)
{
    ClientLedger ledger{{0, Measured(10)},
                        {1, Measured(5)},
                        {2, ClientRecord{}},
                        {3, Measured(20)},
                        {4, Measured(1)}};
    auto policy = Make({{"type", "network"}, {"fairness_rounds", 0}});
    const Selection s = policy->Select(Request(ledger, 2, 3));
    EXPECT_EQ(Sorted(s.clients), (std::vector<uint32_t>{1, 2, 4}));
    EXPECT_EQ(s.scores, (std::map<uint32_t, double>{{1, 5.0}, {4, 1.0}}));
}

TEST(Selection, NetworkFairnessFloorPutsOverdueClientsFirst)
{
    // Round 5 with a floor of 3 rounds: client 3 (last selected in round 1) is overdue, the
    // slowest but chosen; then the fastest.
    ClientLedger ledger{{0, Measured(10, 4)}, {1, Measured(5, 4)}, {3, Measured(20, 1)}};
    auto policy = Make({{"type", "network"}, {"fairness_rounds", 3}});
    const Selection s = policy->Select(Request(ledger, 5, 2));
    EXPECT_EQ(Sorted(s.clients), (std::vector<uint32_t>{1, 3}));
    EXPECT_DOUBLE_EQ(s.scores.at(3), 20.0);
}

TEST(Selection, NetworkRanksAFadedPathBehindAClearOneWithEqualPastRoundTimes)
{
    // Two clients measured alike (2 s rounds, 1.5 s of compute, a 400,028-byte model and a
    // 100,028-byte update), but client 0's microwave hop has faded to 10 Mbit/s each way
    // since, while client 1's path is clear at 100 Mbit/s.
    ClientLedger ledger;
    for (uint32_t c : {0u, 1u})
    {
        ClientRecord r = Measured(2.0);
        r.meanComputeS = 1.5;
        r.modelBytes = 400'028;
        r.updateBytes = 100'028;
        ledger[c] = r;
    }
    SelectionRequest request = Request(ledger, 2, 1);
    request.pathRate = [](uint32_t client) -> std::optional<PathRate> {
        return client == 0 ? PathRate{10e6, 10e6} : PathRate{100e6, 100e6};
    };
    const Selection s = Make({{"type", "network"}, {"fairness_rounds", 0}})->Select(request);
    EXPECT_EQ(s.clients, std::vector<uint32_t>{1});
    // By hand: 1.5 + 8 x 400,028 / 1e8 + 8 x 100,028 / 1e8 = 1.5400448 s.
    EXPECT_DOUBLE_EQ(s.scores.at(1), 1.5 + 8.0 * 400'028 / 100e6 + 8.0 * 100'028 / 100e6);
    // Without path capacity the equal past round times tie, and the lower id goes first.
    const Selection past =
        Make({{"type", "network"}, {"fairness_rounds", 0}, {"path_capacity", false}})
            ->Select(request);
    EXPECT_EQ(past.clients, std::vector<uint32_t>{0});
    EXPECT_DOUBLE_EQ(past.scores.at(0), 2.0);
    // A path that cannot state its capacity (lte) falls back to the measurement; an outage
    // (0 bit/s) ranks last.
    request.pathRate = [](uint32_t client) -> std::optional<PathRate> {
        if (client == 0)
        {
            return std::nullopt;
        }
        return PathRate{0.0, 100e6};
    };
    const Selection fallback = Make({{"type", "network"}, {"fairness_rounds", 0}})->Select(request);
    EXPECT_EQ(fallback.clients, std::vector<uint32_t>{0});
    EXPECT_DOUBLE_EQ(fallback.scores.at(0), 2.0);
}

TEST(Selection, TheLedgerTellsComputeFromTheDownloadByThePathCapacity)
{
    ClientLedger ledger;
    ledger[3].modelBytes = 1'000'000;
    // Selected in round 4 at t = 10 s on a 40 Mbit/s path: the model's 0.2 s download.
    LedgerSelected(ledger, 3, 4, 10.0, 40e6);
    LedgerArrived(ledger, 3, 4, 13.0, 12.5, 5000, std::nan(""), true);
    EXPECT_DOUBLE_EQ(ledger[3].preUploadS, 2.5);
    EXPECT_DOUBLE_EQ(ledger[3].meanComputeS, 2.3);
    // The next measurement weighs half: (1.0 + 2.3) / 2.
    LedgerSelected(ledger, 3, 5, 20.0, 40e6);
    LedgerArrived(ledger, 3, 5, 21.5, 21.2, 5000, std::nan(""), true);
    EXPECT_DOUBLE_EQ(ledger[3].meanComputeS, 0.5 * 1.0 + 0.5 * 2.3);
    // Without a capacity nothing is inferred.
    ClientLedger plain;
    plain[1].modelBytes = 1'000'000;
    LedgerSelected(plain, 1, 1, 0.0);
    LedgerArrived(plain, 1, 1, 3.0, 2.5, 5000, std::nan(""), true);
    EXPECT_TRUE(std::isnan(plain[1].meanComputeS));
}

ClientRecord
Timed(double preUploadS, double uploadS)
{
    ClientRecord r;
    r.preUploadS = preUploadS;
    r.uploadS = uploadS;
    r.durationS = preUploadS + uploadS;
    return r;
}

TEST(Selection, FedCsAdmitsGreedilyBySmallestIncrementWithinTheDeadline)
{
    // By hand: Theta = 0: c0 0 + 2 + 4 = 6, c1 0 + 3 + 1 = 4, c2 0 + 1 + 6 = 7 -> c1 (4).
    // Theta = 4: c0 4 + 2 + 0 = 6, c2 4 + 1 + 2 = 7 -> c0 (6). Theta = 6: c2 6 + 1 + 0 = 7.
    ClientLedger ledger{{0, Timed(4, 2)}, {1, Timed(1, 3)}, {2, Timed(6, 1)}};
    const Selection all = Make({{"type", "fedcs"}}, 3, 8.0)->Select(Request(ledger, 2, 3));
    EXPECT_EQ(all.clients, (std::vector<uint32_t>{1, 0, 2}));
    EXPECT_EQ(all.scores, (std::map<uint32_t, double>{{0, 6.0}, {1, 4.0}, {2, 7.0}}));
    // A deadline of 6.5 s (its own key over server.deadline_s) stops before c2.
    const Selection tight =
        Make({{"type", "fedcs"}, {"deadline_s", 6.5}}, 3, 8.0)->Select(Request(ledger, 2, 3));
    EXPECT_EQ(tight.clients, (std::vector<uint32_t>{1, 0}));
    // Nobody fits: the cheapest still goes, so that rounds go on.
    const Selection none =
        Make({{"type", "fedcs"}, {"deadline_s", 1.0}}, 3)->Select(Request(ledger, 2, 3));
    EXPECT_EQ(none.clients, (std::vector<uint32_t>{1}));
}

ClientRecord
Reported(uint32_t samples, double loss, uint32_t lossRound, double durationS)
{
    ClientRecord r;
    r.samples = samples;
    r.loss = loss;
    r.lossRound = lossRound;
    r.durationS = durationS;
    return r;
}

TEST(Selection, OortScoresAreFedScalesUtilityWithStalenessAndPenalty)
{
    // Rewards |B| x loss: 10, 10, 60; clip at the 0.9 quantile (index 2: 60); min 10 x 0.999;
    // T = the 30th percentile of (1, 2, 10) = 1; round 3. By hand (python):
    // (r - 9.99) / 50.01 + sqrt(0.1 ln 3 / last), times (1 / t)^2 when t > 1.
    ClientLedger ledger{{0, Reported(10, 1.0, 2, 1.0)},
                        {1, Reported(20, 0.5, 2, 2.0)},
                        {2, Reported(30, 2.0, 1, 10.0)}};
    auto policy =
        Make({{"type", "oort"}, {"exploration_factor", 0.0}, {"exploration_min", 0.0}}, 3);
    const Selection s = policy->Select(Request(ledger, 3, 3));
    EXPECT_EQ(Sorted(s.clients), (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_NEAR(s.scores.at(0), 0.23457277078903907, 1e-12);
    EXPECT_NEAR(s.scores.at(1), 0.05864319269725977, 1e-12);
    EXPECT_NEAR(s.scores.at(2), 0.013314532076580511, 1e-12);
}

TEST(Selection, OortExploresUnreportedClientsByDataSize)
{
    // epsilon = 0.9 x 0.98 after the first decay: of 2, int(2 x 0.118) = 0 exploited, so both
    // from the unexplored, scored by data size (no round time measured: no penalty).
    ClientLedger ledger{{0, Reported(10, 1.0, 1, 1.0)}, {1, {}}, {2, {}}};
    ledger[1].samples = 40;
    ledger[2].samples = 50;
    const Selection s = Make({{"type", "oort"}}, 2)->Select(Request(ledger, 2, 2));
    EXPECT_EQ(Sorted(s.clients), (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(s.scores, (std::map<uint32_t, double>{{1, 40.0}, {2, 50.0}}));
}

TEST(Selection, PowerOfChoiceKeepsTheHighestLastReportedLossesAmongCandidates)
{
    ClientLedger ledger{{0, Reported(10, 0.3, 1, 1)},
                        {1, Reported(10, 0.9, 1, 1)},
                        {2, Reported(10, 0.1, 1, 1)},
                        {3, Reported(10, 0.5, 1, 1)}};
    // d = every idle client: the draw cannot matter, the top 2 losses do.
    const Selection s =
        Make({{"type", "power_of_choice"}, {"d", 4}}, 2)->Select(Request(ledger, 2, 2));
    EXPECT_EQ(Sorted(s.clients), (std::vector<uint32_t>{1, 3}));
    EXPECT_EQ(s.scores, (std::map<uint32_t, double>{{1, 0.9}, {3, 0.5}}));
    // A client that never reported ranks first.
    ledger[2].loss = std::nan("");
    const Selection fresh =
        Make({{"type", "power_of_choice"}, {"d", 4}}, 2)->Select(Request(ledger, 2, 2));
    EXPECT_EQ(Sorted(fresh.clients), (std::vector<uint32_t>{1, 2}));
}

TEST(Selection, PowerOfChoiceDrawsCandidatesByDataSize)
{
    // d = 1 of a client with 1000 samples and one with 1: the big one nearly always.
    ClientLedger ledger{{0, Reported(1000, 0.1, 1, 1)}, {1, Reported(1, 0.9, 1, 1)}};
    auto policy = Make({{"type", "power_of_choice"}, {"d", 1}});
    int big = 0;
    for (int i = 0; i < 200; ++i)
    {
        big += policy->Select(Request(ledger, 2, 1)).clients == std::vector<uint32_t>{0};
    }
    EXPECT_GT(big, 190);
}

TEST(Selection, PowDPollsTheCandidatesAndKeepsTheHighestPolledLosses)
{
    // d = every idle client: the candidates are all five; their last reports do not matter.
    ClientLedger ledger{{0, Reported(10, 0.3, 1, 1)},
                        {1, Reported(10, 0.9, 1, 1)},
                        {2, Reported(10, 0.1, 1, 1)},
                        {3, Reported(10, 0.5, 1, 1)},
                        {4, Reported(10, 0.7, 1, 1)}};
    const nlohmann::json spec = {{"type", "power_of_choice"},
                                 {"variant", "pow-d"},
                                 {"d", 5},
                                 {"poll_timeout_s", 2.5}};
    auto policy = Make(spec, 2);
    EXPECT_EQ(policy->PollTimeoutS(), 2.5);
    const Selection poll = policy->Select(Request(ledger, 2, 2));
    EXPECT_TRUE(poll.poll);
    EXPECT_EQ(Sorted(poll.clients), (std::vector<uint32_t>{0, 1, 2, 3, 4}));
    EXPECT_TRUE(poll.scores.empty());
    // Scripted losses at the current model (4 did not answer): by hand, the two highest of
    // {0: 0.8, 1: 0.2, 2: 1.4, 3: 0.8} are 2 (1.4) and, of the tie at 0.8, the lower id 0.
    const Selection kept = policy->KeepPolled({{0, 0.8}, {1, 0.2}, {2, 1.4}, {3, 0.8}}, 2);
    EXPECT_FALSE(kept.poll);
    EXPECT_EQ(Sorted(kept.clients), (std::vector<uint32_t>{0, 2}));
    EXPECT_EQ(kept.scores, (std::map<uint32_t, double>{{0, 0.8}, {2, 1.4}}));
    // Fewer answers than places: every one that answered.
    EXPECT_EQ(Sorted(policy->KeepPolled({{3, 0.1}}, 2).clients), (std::vector<uint32_t>{3}));
    // pow-d needs no loss report on updates; it polls.
    const SelectionSpec powd = SelectionSpec::Parse(spec, "server.selection");
    EXPECT_TRUE(powd.Traits().polls);
    EXPECT_FALSE(powd.Traits().needsLoss);
    const SelectionSpec rpowd =
        SelectionSpec::Parse({{"type", "power_of_choice"}}, "server.selection");
    EXPECT_FALSE(rpowd.Traits().polls);
    EXPECT_TRUE(rpowd.Traits().needsLoss);
}

TEST(Selection, PowDDrawsTheSameCandidatesAsRpowD)
{
    // The variants differ only in the loss they rank by: with d < idle the same stream draws
    // the same candidates, and rpow-d keeps the highest of them by their last reports.
    ClientLedger ledger;
    for (uint32_t c = 0; c < 12; ++c)
    {
        ledger[c] = Reported(10 + 5 * c, 0.1 * c, 1, 1);
    }
    auto powd = Make({{"type", "power_of_choice"}, {"variant", "pow-d"}, {"d", 6}}, 3);
    auto rpowd = Make({{"type", "power_of_choice"}, {"d", 6}}, 3);
    const Selection candidates = powd->Select(Request(ledger, 2, 3));
    ASSERT_EQ(candidates.clients.size(), 6u);
    std::map<uint32_t, double> last;
    for (uint32_t c : candidates.clients)
    {
        last[c] = ledger[c].loss;
    }
    EXPECT_EQ(Sorted(rpowd->Select(Request(ledger, 2, 3)).clients),
              Sorted(powd->KeepPolled(last, 3).clients));
}

void
ExpectRefused(const nlohmann::json& json, const std::string& path, size_t wanted = 1)
{
    try
    {
        Make(json, wanted);
        ADD_FAILURE() << json.dump() << " was accepted";
    }
    catch (const RuleConfigError& e)
    {
        EXPECT_EQ(std::string(e.what()).rfind(path + ":", 0), 0u) << e.what();
    }
}

TEST(Selection, BadKeysAreRefusedNamingTheField)
{
    ExpectRefused({{"type", "lottery"}}, "server.selection.type");
    ExpectRefused({{"type", "random"}, {"d", 3}}, "server.selection.d");
    ExpectRefused({{"type", "network"}, {"fairness_rounds", -1}},
                  "server.selection.fairness_rounds");
    ExpectRefused({{"type", "fedcs"}, {"request_fraction", 1.5}},
                  "server.selection.request_fraction");
    ExpectRefused({{"type", "oort"}, {"round_threshold", 150}}, "server.selection.round_threshold");
    ExpectRefused({{"type", "oort"}, {"fairness_rounds", 3}}, "server.selection.fairness_rounds");
    ExpectRefused({{"type", "network"}, {"path_capacity", 1}}, "server.selection.path_capacity");
    ExpectRefused({{"type", "fedcs"}, {"path_capacity", true}}, "server.selection.path_capacity");
    ExpectRefused({{"type", "power_of_choice"}, {"d", 2}}, "server.selection.d", 3);
    ExpectRefused({{"type", "power_of_choice"}, {"variant", "cpow-d"}}, "server.selection.variant");
    ExpectRefused({{"type", "power_of_choice"}, {"poll_timeout_s", 1}},
                  "server.selection.poll_timeout_s");
    ExpectRefused({{"type", "power_of_choice"}, {"variant", "pow-d"}, {"poll_timeout_s", 0}},
                  "server.selection.poll_timeout_s");
}

TEST(Selection, TheLedgerMeasuresOnlyTheRoundAClientWasSelectedIn)
{
    ClientLedger ledger;
    LedgerSelected(ledger, 7, 3, 100.0);
    LedgerArrived(ledger, 7, 2, 104.0, -1.0, 50, 0.5, false); // an older round's: ignored
    EXPECT_TRUE(std::isnan(ledger[7].durationS));
    LedgerArrived(ledger, 7, 3, 110.0, 108.0, 50, 0.25, true);
    EXPECT_DOUBLE_EQ(ledger[7].durationS, 10.0);
    EXPECT_DOUBLE_EQ(ledger[7].preUploadS, 8.0);
    EXPECT_DOUBLE_EQ(ledger[7].uploadS, 2.0);
    EXPECT_DOUBLE_EQ(ledger[7].loss, 0.25);
    EXPECT_EQ(ledger[7].lastCompleted, 3u);
    LedgerSelected(ledger, 7, 4, 200.0);
    LedgerArrived(ledger, 7, 4, 230.0, -1.0, 50, std::nan(""), false); // late: still measured
    EXPECT_DOUBLE_EQ(ledger[7].meanDurationS, 0.5 * 30.0 + 0.5 * 10.0);
    EXPECT_DOUBLE_EQ(ledger[7].loss, 0.25);
}

} // namespace
} // namespace fedran
