// The TCP corrections of the flow-level transport.

#include "models/flow/tcp-flow-model.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fedran
{
namespace
{

TEST(TcpFlowModel, WireBytesCountHeadersPerSegmentAndAnAckPerTwo)
{
    const TcpFlowSettings tcp;
    EXPECT_EQ(Segments(1, tcp), 1u);
    EXPECT_EQ(Segments(1448, tcp), 1u);
    EXPECT_EQ(Segments(1449, tcp), 2u);
    EXPECT_EQ(DataWireBytes(1448, tcp), 1502u);
    EXPECT_EQ(DataWireBytes(14480, tcp), 15020u);
    EXPECT_EQ(AckWireBytes(14480, tcp), 5u * 54u);
    EXPECT_EQ(AckWireBytes(1448 * 3, tcp), 2u * 54u);
}

TEST(TcpFlowModel, SlowStartIdlesWhileAWindowIsShorterThanTheRtt)
{
    // 50 Mbit/s, one segment 240.32 us; RTT 20 ms + 240.32 us. Windows 10, 20, 40 segments
    // serialise in under an RTT (idle), 80 (19.2 ms) does too, 160 does not: 4 idle rounds
    // for a message of 1000 segments, 150 segments sent in them.
    const TcpFlowSettings tcp;
    const double segmentS = 1502 * 8.0 / 50e6;
    const double rtt = 0.020 + segmentS;
    const SlowStartResult ss = SlowStart(1448 * 1000, 50e6, rtt, 10, tcp);
    EXPECT_NEAR(ss.idleS, 4 * rtt - 150 * segmentS, 1e-12);
    EXPECT_EQ(ss.cwndAfter, 1010u);
    // ns-3 grows the window by whole acknowledged segments: a 28-byte message (a join) leaves
    // it at 10, which the next message (an upload) starts from; 550.3 segments add 550.
    EXPECT_EQ(SlowStart(28, 50e6, rtt, 10, tcp).cwndAfter, 10u);
    EXPECT_EQ(SlowStart(796876, 50e6, rtt, 10, tcp).cwndAfter, 560u);
    // A window already open: no idle.
    EXPECT_DOUBLE_EQ(SlowStart(1448 * 1000, 50e6, rtt, 1010, tcp).idleS, 0.0);
    // A message of 25 segments: rounds of 10 (idle), then 15 left in the next window.
    EXPECT_NEAR(SlowStart(1448 * 25, 50e6, rtt, 10, tcp).idleS, rtt - 10 * segmentS, 1e-12);
}

TEST(TcpFlowModel, MathisBoundAndWindowCap)
{
    const TcpFlowSettings tcp;
    EXPECT_TRUE(std::isinf(MathisRateBps(0.01, 0.0, tcp)));
    EXPECT_NEAR(MathisRateBps(0.01, 0.01, tcp), 1502 * 8 / 0.01 * std::sqrt(1.5) / 0.1, 1e-6);
    // No loss: 4 MiB per RTT (2896 segments of 1502 wire bytes).
    EXPECT_NEAR(RateCapBps(0.1, 0.0, tcp), 2896 * 1502 * 8 / 0.1, 1e-6);
}

TEST(TcpFlowModel, PathRttLatencyAndLoss)
{
    const TcpFlowSettings tcp;
    const std::vector<PathHop> path = {{50e6, 0.010, 0.01}, {1e9, 0.002, 0.0}};
    const double seg50 = 1502 * 8.0 / 50e6;
    const double seg1g = 1502 * 8.0 / 1e9;
    EXPECT_NEAR(PathRttS(path, tcp), 0.024 + seg50 + seg1g, 1e-15);
    EXPECT_NEAR(PathLatencyS(path, tcp), 0.012 + seg1g, 1e-15);
    // A 28-byte message is an 82-byte segment; a SYN and a SYN-ACK are 58 bytes each way.
    EXPECT_NEAR(PathLatencyS(path, tcp, 28), 0.012 + 82 * 8 / 1e9, 1e-15);
    EXPECT_NEAR(HandshakeRttS(path), 0.024 + 2 * 58 * 8 / 50e6 + 2 * 58 * 8 / 1e9, 1e-15);
    EXPECT_NEAR(PathLoss(path), 0.01, 1e-15);
    EXPECT_NEAR(PathLoss({{1, 0, 0.1}, {1, 0, 0.1}}), 0.19, 1e-15);
}

TEST(TcpFlowModel, AloneTransferIsSlowStartPlusWireOverRatePlusLatency)
{
    const TcpFlowSettings tcp;
    const std::vector<PathHop> path = {{50e6, 0.010, 0.0}, {1e9, 0.001, 0.0}};
    const uint64_t bytes = 800000;
    const double rtt = PathRttS(path, tcp);
    const double expected = SlowStart(bytes, 50e6, rtt, 10, tcp).idleS +
                            DataWireBytes(bytes, tcp) * 8.0 / 50e6 + PathLatencyS(path, tcp);
    EXPECT_DOUBLE_EQ(AloneTransferS(bytes, path, 10, tcp), expected);
}

} // namespace
} // namespace fedran
