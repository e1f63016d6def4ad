// The port micro-simulation's packets beyond its ports and between its flows
// (models/flow/port-micro-sim.h): what a segment and an ACK meet after the port, a host's
// first hop shared by its data and its ACKs, SACK blocks that outlive lost ACKs, the ACK a
// connection's data carries the other way, NextSeg's rule 3 and the threshold of a second
// timeout in a row. Each case is small enough to be solved by hand; the comment before it
// does so.

#include "models/flow/port-micro-sim.h"

#include <gtest/gtest.h>

#include <vector>

namespace fedran
{
namespace
{

/// Rates at which a 1502-byte packet (a full segment on the wire) takes 1 ms, 10 ms, 1 s.
constexpr double kOneMsPerPacket = 1502 * 8 / 1e-3;
constexpr double kTenMsPerPacket = 1502 * 8 / 10e-3;
constexpr double kOneSecondPerPacket = 1502 * 8 / 1.0;

std::vector<MicroTraceRow>
RowsOf(const std::vector<MicroTraceRow>& rows, uint32_t flow, MicroTraceRow::Event event)
{
    std::vector<MicroTraceRow> out;
    for (const MicroTraceRow& row : rows)
    {
        if (row.flow == flow && row.event == event)
        {
            out.push_back(row);
        }
    }
    return out;
}

// A message of one full segment and 448 bytes, window 1, through a port of 1 ms per full
// packet and then a hop as fast that stores and forwards. Segment 0 leaves the port at 1 ms,
// the hop at 2 ms; its ACK (at once: a new connection) is back at 12 ms. Segment 1 (502 bytes
// on the wire, 502/1502 ms on each line) leaves the port at 12.334 ms and the hop at
// 12.668 ms: the short segment takes its own time on the hop, not a full one's (13.334 ms).
TEST(PortMicroSimPaths, AShortLastSegmentTakesItsOwnTimeOnTheHopsAfterThePort)
{
    MicroTcpSettings tcp;
    PortMicroSim sim(kOneMsPerPacket, 10, tcp);
    MicroFlowSpec f;
    f.payloadBytes = 1448 + 448;
    f.feeder = sim.AddFeeder(0.0);
    f.fromPortSecondsPerBit = 1.0 / kOneMsPerPacket;
    f.dataNextHop = {5, 0.0, 1.0 / kOneMsPerPacket};
    f.ackDelayS = 0.010;
    f.srttS = 0.010;
    f.cwnd = 1;
    f.newConnection = true;
    const uint32_t id = sim.AddFlow(f);
    sim.RunUntil(1.0);
    ASSERT_TRUE(sim.Result(id).done);
    EXPECT_NEAR(sim.Result(id).finishS, 0.012 + 2 * 502 * 8 / kOneMsPerPacket, 1e-12);
}

// Two one-segment flows through a port of 1 ms per packet, then a hop ten times slower. X
// leaves the port at 1 ms and the hop at 11 ms. Y leaves the port at 2 ms: if the hop is the
// one X crossed, Y waits there until 11 ms and is through at 21 ms; on a hop of its own, at
// 12 ms.
TEST(PortMicroSimPaths, FlowsThatShareTheHopAfterThePortQueueThereInOrder)
{
    auto run = [](uint32_t yHop) {
        MicroTcpSettings tcp;
        PortMicroSim sim(kOneMsPerPacket, 10, tcp);
        MicroFlowSpec x;
        x.payloadBytes = 1448;
        x.feeder = sim.AddFeeder(0.0);
        x.fromPortSecondsPerBit = 1.0 / kTenMsPerPacket;
        x.dataNextHop = {9, 0.0, 1.0 / kTenMsPerPacket};
        x.ackDelayS = 0.010;
        x.cwnd = 1;
        MicroFlowSpec y = x;
        y.feeder = sim.AddFeeder(0.0);
        y.dataNextHop.id = yHop;
        sim.AddFlow(x);
        const uint32_t fy = sim.AddFlow(y);
        sim.RunUntil(1.0);
        return sim.Result(fy).finishS;
    };
    EXPECT_NEAR(run(9), 0.021, 1e-12);
    EXPECT_NEAR(run(10), 0.012, 1e-12);
}

// A host sends its ACKs through its first hop, behind the data it sends there. Host H sends
// A's three segments through a first hop of 10 ms per packet (busy 0-30 ms) to a port of
// 1 ms per packet (A2 on its line 30-31 ms). B's first segment (window 1) reaches H through
// the reverse port at 1 ms; its ACK (54 bytes) waits behind A2 on H's first hop until 30 ms, takes
// 0.36 ms there and, at the port, waits for A2 until 31 ms: B's sender has it at
// 31 ms + 54 bytes at the port's rate. Sent straight to the port, it is there at 1 ms.
TEST(PortMicroSimPaths, AHostsAcksWaitBehindItsOwnDataOnItsFirstHop)
{
    auto firstAck = [](bool behindData) {
        MicroTcpSettings tcp;
        PortMicroSim sim(kOneMsPerPacket, 100, tcp);
        sim.AddReversePort(kOneMsPerPacket, 100);
        MicroFlowSpec a;
        a.payloadBytes = 3 * 1448;
        a.feeder = sim.AddFeeder(kTenMsPerPacket);
        a.ackDelayS = 0.010;
        a.cwnd = 3;
        MicroFlowSpec b;
        b.payloadBytes = 2 * 1448;
        b.feeder = sim.AddFeeder(0.0);
        b.reverse = true;
        b.cwnd = 1;
        b.newConnection = true;
        b.srttS = 0.010;
        b.ackSecondsPerBit = 1.0 / kTenMsPerPacket + 1.0 / kOneMsPerPacket;
        b.ackToPortSecondsPerBit = 1.0 / kTenMsPerPacket;
        if (behindData)
        {
            b.ackFeeder = a.feeder;
        }
        std::vector<MicroTraceRow> rows;
        sim.SetTrace(&rows);
        sim.AddFlow(a);
        const uint32_t fb = sim.AddFlow(b);
        sim.RunUntil(1.0);
        const std::vector<MicroTraceRow> acks = RowsOf(rows, fb, MicroTraceRow::Event::Ack);
        return acks.empty() ? -1.0 : acks.front().timeS;
    };
    EXPECT_NEAR(firstAck(true), 0.031 + 54 * 8 / kOneMsPerPacket, 1e-12);
    EXPECT_NEAR(firstAck(false),
                0.001 + 54 * 8 / kTenMsPerPacket + 54 * 8 / kOneMsPerPacket,
                1e-12);
}

// An ACK names up to three blocks of what the receiver holds, so what a lost ACK said comes
// with the next. D fills the port (1 ms per packet, two places) at 0 ms with three
// segments; A's segments reach it every 0.9 ms from 0.9 ms: A0 meets a full buffer and is
// dropped, A1-A5 get through and leave the port at 4-8 ms. Their duplicate ACKs (SACKs of
// [1,2) ... [1,6)) reach the reverse port (10 ms per packet, two places, filled by C's three
// segments until C0 leaves at 10 ms) at 6.5-10.5 ms: the first four are lost, the last gets
// the place C0 left. It names A1-A5, so the sender sees five SACKed segments above A0, marks
// A0 lost and sends it again (NextSeg's rule 1; one duplicate ACK arrived, not three, so
// there is no recovery): no timeout, one retransmission. An ACK that named only its own
// segment (A5) would leave A1-A4 unknown and A0 not lost until the timeout at 1 s.
TEST(PortMicroSimPaths, SackBlocksCarryWhatLostAcksSaid)
{
    MicroTcpSettings tcp;
    PortMicroSim sim(kOneMsPerPacket, 2, tcp);
    sim.AddReversePort(kTenMsPerPacket, 2);
    MicroFlowSpec d;
    d.payloadBytes = 3 * 1448;
    d.feeder = sim.AddFeeder(0.0);
    d.cwnd = 3;
    d.ackDelayS = 0.005;
    MicroFlowSpec c;
    c.payloadBytes = 3 * 1448;
    c.feeder = sim.AddFeeder(0.0);
    c.cwnd = 3;
    c.reverse = true;
    c.ackDelayS = 0.005;
    MicroFlowSpec a;
    a.payloadBytes = 6 * 1448;
    a.feeder = sim.AddFeeder(kOneMsPerPacket / 0.9);
    a.cwnd = 6;
    a.ackDelayS = 0.005;
    a.ackToPortS = 0.0025;
    a.ackSecondsPerBit = 1.0 / kTenMsPerPacket;
    a.srttS = 0.010;
    sim.AddFlow(d);
    sim.AddFlow(c);
    const uint32_t fa = sim.AddFlow(a);
    sim.RunUntil(10.0);
    ASSERT_TRUE(sim.Result(fa).done);
    EXPECT_EQ(sim.Result(fa).timeouts, 0u);
    EXPECT_EQ(sim.Result(fa).retransmissions, 1u);
    EXPECT_EQ(sim.Result(fa).fastRecoveries, 0u);
    EXPECT_EQ(sim.AckDrops(), 5u); // A's four, and D's ACK of D0-D1 at 2 ms
    EXPECT_LT(sim.Result(fa).finishS, 0.1);
}

// TCP sends its ACK with its data: a connection's first segment one way tells the other
// way's sender all the receiver holds, and cancels the delayed ACK. A's first segment
// (window 1) is received at 1 ms; with delayed ACKs its ACK would wait until 201 ms. B, on the same
// connection the other way, starts at 50 ms: A's sender hears of A0 a segment's time on the
// path after 50 ms, and no ACK of A's crosses the reverse port.
TEST(PortMicroSimPaths, AConnectionsDataCarriesTheAckItsReceiverOwes)
{
    auto ackAt = [](uint64_t bConnection) {
        MicroTcpSettings tcp;
        PortMicroSim sim(kOneMsPerPacket, 100, tcp);
        sim.AddReversePort(kOneMsPerPacket, 100);
        MicroFlowSpec a;
        a.payloadBytes = 2 * 1448;
        a.feeder = sim.AddFeeder(0.0);
        a.cwnd = 1;
        a.ackDelayS = 0.005;
        a.ackSecondsPerBit = 1.0 / kOneMsPerPacket;
        a.connection = 7;
        MicroFlowSpec b = a;
        b.feeder = sim.AddFeeder(0.0);
        b.reverse = true;
        b.startS = 0.050;
        b.connection = bConnection;
        std::vector<MicroTraceRow> rows;
        sim.SetTrace(&rows);
        const uint32_t fa = sim.AddFlow(a);
        sim.AddFlow(b);
        sim.RunUntil(1.0);
        const std::vector<MicroTraceRow> acks = RowsOf(rows, fa, MicroTraceRow::Event::Ack);
        return acks.empty() ? -1.0 : acks.front().timeS;
    };
    EXPECT_NEAR(ackAt(7), 0.050 + 0.005 + 1502 * 8 / kOneMsPerPacket, 1e-12);
    EXPECT_NEAR(ackAt(0), 0.001 + 0.200 + 0.005 + 54 * 8 / kOneMsPerPacket, 1e-12);
}

// NextSeg's rule 3 as ns-3.37 has it: in SACK recovery, with no hole marked lost and no new
// data left, the first segment neither SACKed nor sent again goes again, though it is only in
// flight. Fourteen segments, a window of 4 into a buffer of 2 (1 ms per packet, an ACK per
// segment 5 ms back): 3 is dropped at once and 7 at 7.5 ms; the SACKs of 4-6 start recovery
// at 15 ms, 3 and 7 go again, and once 13, the last, is sent, a segment still in flight
// goes again too: three retransmissions for two drops, no timeout.
TEST(PortMicroSimPaths, RecoveryWithNothingLeftToSendSendsTheTailAgain)
{
    MicroTcpSettings tcp;
    tcp.delAckCount = 1;
    PortMicroSim sim(kOneMsPerPacket, 2, tcp);
    MicroFlowSpec f;
    f.payloadBytes = 14 * 1448;
    f.feeder = sim.AddFeeder(0.0);
    f.fromPortS = 0.0005;
    f.ackDelayS = 0.005;
    f.cwnd = 4;
    f.srttS = 0.010;
    const uint32_t id = sim.AddFlow(f);
    sim.RunUntil(10.0);
    ASSERT_TRUE(sim.Result(id).done);
    EXPECT_EQ(sim.Drops(), 2u);
    EXPECT_EQ(sim.Result(id).timeouts, 0u);
    EXPECT_EQ(sim.Result(id).fastRecoveries, 1u);
    EXPECT_EQ(sim.Result(id).retransmissions, 3u);
}

// A second timeout in a row sets the threshold again, from the window of one segment the
// first left: ns-3.37's ReTxTimeout keeps it only if the head was sent again, and
// SetSentListLost has just cleared that flag. A's ten segments get through; its ACKs meet a
// reverse port (1 s per packet, two places) that C keeps full, so every one is lost and A
// times out at 1 s (window 10: threshold 7) and again at 3 s (window 1: threshold 2).
TEST(PortMicroSimPaths, ASecondTimeoutInARowSetsTheThresholdFromOneSegment)
{
    MicroTcpSettings tcp;
    PortMicroSim sim(kOneMsPerPacket, 100, tcp);
    sim.AddReversePort(kOneSecondPerPacket, 2);
    MicroFlowSpec a;
    a.payloadBytes = 10 * 1448;
    a.feeder = sim.AddFeeder(0.0);
    a.cwnd = 10;
    a.ackDelayS = 0.010;
    a.ackToPortS = 0.005;
    a.srttS = 0.010;
    MicroFlowSpec c;
    c.payloadBytes = 50 * 1448;
    c.feeder = sim.AddFeeder(0.0);
    c.cwnd = 50;
    c.reverse = true;
    c.ackDelayS = 0.001;
    c.srttS = 0.010;
    std::vector<MicroTraceRow> rows;
    sim.SetTrace(&rows);
    const uint32_t fa = sim.AddFlow(a);
    sim.AddFlow(c);
    sim.RunUntil(3.5);
    const std::vector<MicroTraceRow> timeouts = RowsOf(rows, fa, MicroTraceRow::Event::Timeout);
    ASSERT_GE(timeouts.size(), 2u);
    EXPECT_NEAR(timeouts[0].timeS, 1.0, 1e-3);
    EXPECT_EQ(timeouts[0].ssthresh, 7.0);
    EXPECT_NEAR(timeouts[1].timeS, 3.0, 2e-3);
    EXPECT_EQ(timeouts[1].ssthresh, 2.0);
}

} // namespace
} // namespace fedran
