// FluidNetwork: max-min fair shares by progressive filling, kept up to date incrementally.

#include "models/flow/fluid-network.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <vector>

namespace fedran
{
namespace
{

constexpr double kMbps = 1e6;

TEST(FluidNetwork, OneFlowTakesTheLinkAndEndsAtBitsOverRate)
{
    FluidNetwork net;
    const auto link = net.AddLink(50 * kMbps);
    const auto flow = net.AddFlow({link}, 8e6, FluidNetwork::kUnlimited, 1.0);
    EXPECT_DOUBLE_EQ(net.Rate(flow), 50 * kMbps);
    const auto next = net.NextCompletion();
    ASSERT_TRUE(next);
    EXPECT_EQ(next->second, flow);
    EXPECT_DOUBLE_EQ(next->first, 1.0 + 8e6 / (50 * kMbps));
}

TEST(FluidNetwork, NFlowsOnOneHopGetRateOverNAndAnEndingFlowFreesItsShareAtOnce)
{
    FluidNetwork net;
    const auto hop = net.AddLink(100 * kMbps);
    std::vector<FluidNetwork::FlowId> flows;
    for (int i = 0; i < 4; ++i)
    {
        // Different sizes: the smallest finishes first.
        flows.push_back(net.AddFlow({hop}, (i + 1) * 10e6, FluidNetwork::kUnlimited, 0.0));
    }
    for (auto f : flows)
    {
        EXPECT_DOUBLE_EQ(net.Rate(f), 25 * kMbps);
    }
    auto next = net.NextCompletion();
    ASSERT_TRUE(next);
    EXPECT_EQ(next->second, flows[0]);
    EXPECT_DOUBLE_EQ(next->first, 10e6 / (25 * kMbps)); // 0.4 s
    net.RemoveFlow(flows[0], next->first);
    for (int i = 1; i < 4; ++i)
    {
        EXPECT_DOUBLE_EQ(net.Rate(flows[i]), 100 * kMbps / 3);
        EXPECT_NEAR(net.RemainingBits(flows[i], 0.4), i * 10e6, 1e-6);
    }
    // Flow 1 has 10 Mbit left at 33.3 Mbit/s: done 0.3 s later.
    next = net.NextCompletion();
    ASSERT_TRUE(next);
    EXPECT_EQ(next->second, flows[1]);
    EXPECT_NEAR(next->first, 0.7, 1e-12);
    EXPECT_NEAR(net.Load(hop), 100 * kMbps, 1e-6);
}

TEST(FluidNetwork, MaxMinOverTwoLinksFreezesTheBottleneckFirst)
{
    // A crosses both links, B only the first, C only the second: the second (4) is the
    // bottleneck, A and C get 2 each, B takes what A leaves of the first (10 - 2).
    FluidNetwork net;
    const auto l1 = net.AddLink(10.0);
    const auto l2 = net.AddLink(4.0);
    const auto a = net.AddFlow({l1, l2}, 100.0, FluidNetwork::kUnlimited, 0.0);
    const auto b = net.AddFlow({l1}, 100.0, FluidNetwork::kUnlimited, 0.0);
    const auto c = net.AddFlow({l2}, 100.0, FluidNetwork::kUnlimited, 0.0);
    EXPECT_DOUBLE_EQ(net.Rate(a), 2.0);
    EXPECT_DOUBLE_EQ(net.Rate(b), 8.0);
    EXPECT_DOUBLE_EQ(net.Rate(c), 2.0);
}

TEST(FluidNetwork, AFlowCapLeavesTheRestToTheOthers)
{
    FluidNetwork net;
    const auto link = net.AddLink(10.0);
    const auto capped = net.AddFlow({link}, 100.0, 2.0, 0.0);
    const auto free = net.AddFlow({link}, 100.0, FluidNetwork::kUnlimited, 0.0);
    EXPECT_DOUBLE_EQ(net.Rate(capped), 2.0);
    EXPECT_DOUBLE_EQ(net.Rate(free), 8.0);
}

TEST(FluidNetwork, FixedFlowsTakeTheirRateFirst)
{
    FluidNetwork net;
    const auto link = net.AddLink(10.0);
    const auto bg = net.AddFixedFlow(link, 3.0, 0.0);
    const auto flow = net.AddFlow({link}, 70.0, FluidNetwork::kUnlimited, 0.0);
    EXPECT_DOUBLE_EQ(net.Rate(bg), 3.0);
    EXPECT_DOUBLE_EQ(net.Rate(flow), 7.0);
    // Background turning off at t = 5 gives the flow the whole link: 35 bits left at 10.
    net.SetFixedRate(bg, 0.0, 5.0);
    EXPECT_DOUBLE_EQ(net.Rate(flow), 10.0);
    EXPECT_DOUBLE_EQ(net.NextCompletion()->first, 8.5);
    EXPECT_DOUBLE_EQ(net.FixedCarriedBits(link, 20.0), 15.0);
    // More fixed rate than capacity: scaled down together, nothing left for elastic flows.
    net.SetFixedRate(bg, 30.0, 6.0);
    EXPECT_DOUBLE_EQ(net.Rate(bg), 10.0);
    EXPECT_DOUBLE_EQ(net.Rate(flow), 0.0);
}

TEST(FluidNetwork, ACapacityStepChangesTheFinishAsTheIntegralOfTheRateSays)
{
    // 100 Mbit at 10 Mbit/s; at 4 s the link drops to 5 Mbit/s (a modulation step): 40 Mbit
    // were sent, 60 remain, which take 12 s more.
    FluidNetwork net;
    const auto link = net.AddLink(10 * kMbps);
    const auto flow = net.AddFlow({link}, 100e6, FluidNetwork::kUnlimited, 0.0);
    EXPECT_DOUBLE_EQ(net.NextCompletion()->first, 10.0);
    net.SetCapacity(link, 5 * kMbps, 4.0);
    EXPECT_DOUBLE_EQ(net.RemainingBits(flow, 4.0), 60e6);
    EXPECT_DOUBLE_EQ(net.NextCompletion()->first, 16.0);
    // An outage from 6 s to 9 s stalls it for 3 s.
    net.SetCapacity(link, 0.0, 6.0);
    EXPECT_FALSE(net.NextCompletion());
    net.SetCapacity(link, 5 * kMbps, 9.0);
    EXPECT_DOUBLE_EQ(net.NextCompletion()->first, 19.0);
    EXPECT_DOUBLE_EQ(net.CarriedBits(link, 19.0), 100e6);
}

/// Every flow is at its cap or has a bottleneck: a saturated link where no flow is faster.
void
ExpectMaxMin(FluidNetwork& net,
             const std::vector<std::vector<FluidNetwork::LinkId>>& paths,
             const std::vector<FluidNetwork::FlowId>& flows,
             const std::vector<double>& caps)
{
    std::map<FluidNetwork::LinkId, double> fastest;
    for (size_t i = 0; i < flows.size(); ++i)
    {
        for (auto l : paths[i])
        {
            fastest[l] = std::max(fastest[l], net.Rate(flows[i]));
        }
    }
    for (size_t i = 0; i < flows.size(); ++i)
    {
        const double rate = net.Rate(flows[i]);
        bool bottlenecked = std::abs(rate - caps[i]) < 1e-6 * caps[i];
        for (auto l : paths[i])
        {
            const bool saturated = net.Load(l) >= net.Capacity(l) * (1 - 1e-9);
            bottlenecked = bottlenecked || (saturated && rate >= fastest[l] * (1 - 1e-9));
            EXPECT_LE(net.Load(l), net.Capacity(l) * (1 + 1e-9));
        }
        EXPECT_TRUE(bottlenecked) << "flow " << i << " could go faster";
    }
}

TEST(FluidNetwork, IncrementalUpdatesEqualARecomputationFromScratchOnATree)
{
    // A tree: core, 4 hubs, 40 sites; flows from random sites, some capped, starting, ending
    // and meeting capacity changes in a fixed pseudo-random order.
    std::mt19937 rng(7);
    std::vector<double> capacity = {200};
    std::vector<std::vector<FluidNetwork::LinkId>> sitePath;
    for (int h = 0; h < 4; ++h)
    {
        capacity.push_back(60 + 20 * h);
    }
    for (int s = 0; s < 40; ++s)
    {
        capacity.push_back(10 + (s % 7) * 5);
        const FluidNetwork::LinkId hub = 1 + s % 4;
        sitePath.push_back({static_cast<FluidNetwork::LinkId>(5 + s), hub, 0});
    }
    FluidNetwork net;
    for (double c : capacity)
    {
        net.AddLink(c);
    }
    struct Live
    {
        FluidNetwork::FlowId id;
        std::vector<FluidNetwork::LinkId> path;
        double cap;
    };
    std::vector<Live> live;
    double now = 0.0;
    for (int step = 0; step < 300; ++step)
    {
        now += 0.01;
        const int action = rng() % 10;
        if (action < 5 || live.empty())
        {
            const auto& path = sitePath[rng() % sitePath.size()];
            const double cap = rng() % 3 == 0 ? 3.0 + rng() % 10 : FluidNetwork::kUnlimited;
            live.push_back({net.AddFlow(path, 1e9, cap, now), path, cap});
        }
        else if (action < 8)
        {
            const size_t k = rng() % live.size();
            net.RemoveFlow(live[k].id, now);
            live.erase(live.begin() + k);
        }
        else
        {
            const FluidNetwork::LinkId l = rng() % capacity.size();
            capacity[l] = rng() % 4 == 0 ? 0.0 : 5.0 + rng() % 100;
            net.SetCapacity(l, capacity[l], now);
        }
        if (step % 25 == 0)
        {
            FluidNetwork fresh;
            for (double c : capacity)
            {
                fresh.AddLink(c);
            }
            std::vector<FluidNetwork::FlowId> freshIds;
            std::vector<std::vector<FluidNetwork::LinkId>> paths;
            std::vector<double> caps;
            std::vector<FluidNetwork::FlowId> ids;
            for (const Live& f : live)
            {
                freshIds.push_back(fresh.AddFlow(f.path, 1e9, f.cap, now));
                paths.push_back(f.path);
                caps.push_back(f.cap);
                ids.push_back(f.id);
            }
            for (size_t i = 0; i < live.size(); ++i)
            {
                EXPECT_NEAR(net.Rate(live[i].id), fresh.Rate(freshIds[i]), 1e-9) << "step " << step;
            }
            ExpectMaxMin(net, paths, ids, caps);
        }
    }
}

TEST(FluidNetwork, AChangeMovesOnlyTheFlowsConnectedToIt)
{
    // Two separate trees: flows starting and ending under one never reassign the other's.
    FluidNetwork net;
    const auto coreA = net.AddLink(100.0);
    const auto coreB = net.AddLink(100.0);
    std::vector<FluidNetwork::LinkId> sitesA;
    for (int i = 0; i < 50; ++i)
    {
        sitesA.push_back(net.AddLink(10.0));
        net.AddFlow({sitesA.back(), coreA}, 1e6, FluidNetwork::kUnlimited, 0.0);
    }
    net.Update();
    const uint64_t before = net.RateAssignments();
    const auto siteB = net.AddLink(10.0);
    const auto flowB = net.AddFlow({siteB, coreB}, 1e6, FluidNetwork::kUnlimited, 1.0);
    EXPECT_DOUBLE_EQ(net.Rate(flowB), 10.0);
    EXPECT_EQ(net.RateAssignments() - before, 1u);
}

TEST(FluidNetwork, TenThousandFlowsCostLinearWorkPerChange)
{
    // 10,000 sites behind 100 hubs and one core: a batch of 10,000 starts is one
    // recomputation (each flow assigned once), and an end assigns each remaining flow once.
    FluidNetwork net;
    const auto core = net.AddLink(10e9);
    std::vector<FluidNetwork::LinkId> hubs;
    for (int h = 0; h < 100; ++h)
    {
        hubs.push_back(net.AddLink(1e9));
    }
    std::vector<FluidNetwork::FlowId> flows;
    for (int s = 0; s < 10000; ++s)
    {
        const auto site = net.AddLink(50e6);
        flows.push_back(
            net.AddFlow({site, hubs[s % 100], core}, 8e6 + s, FluidNetwork::kUnlimited, 0.0));
    }
    net.Update();
    EXPECT_EQ(net.RateAssignments(), 10000u);
    EXPECT_DOUBLE_EQ(net.Rate(flows[0]), 1e6); // the core: 10 Gbit/s over 10,000
    const auto next = net.NextCompletion();
    ASSERT_TRUE(next);
    EXPECT_EQ(next->second, flows[0]);
    net.RemoveFlow(flows[0], next->first);
    net.Update();
    EXPECT_EQ(net.RateAssignments(), 10000u + 9999u);
}

} // namespace
} // namespace fedran
