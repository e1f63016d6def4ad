// When a port leaves the fluid model for the packet-level micro-simulation
// (models/flow/port-micro-sim.h): a drop-tail port that can overflow, and a sender's own FIFO
// that orders its flows. Both checked against the hand computation of their inequalities.

#include "models/flow/port-trigger.h"

#include <gtest/gtest.h>

namespace fedran
{
namespace
{

// A 100 Mbit/s line and a 20 ms path: its bandwidth-delay product is 100e6 * 0.02 / (1502 * 8)
// = 166.4 segments of 1448 payload bytes and 54 header bytes.
constexpr double kLine = 100e6;
constexpr double kRtt = 0.02;

TEST(PortTrigger, ADropTailPortOverflowsWhenTheWindowsExceedBufferAndPath)
{
    const MicroTcpSettings tcp;
    // 100 packets of buffer + 166.4 in flight: 267 segments of window overflow it, 266 do not.
    EXPECT_TRUE(PortCanOverflow(kLine, 100, kRtt, 1e9, 267, tcp));
    EXPECT_FALSE(PortCanOverflow(kLine, 100, kRtt, 1e9, 266, tcp));
    // Hosts that cannot send faster than the line build no queue, whatever their windows.
    EXPECT_FALSE(PortCanOverflow(kLine, 100, kRtt, kLine, 100000, tcp));
}

TEST(PortTrigger, ASendersFifoOrdersItsFlowsWhereItIsTheirBottleneck)
{
    const MicroTcpSettings tcp;
    // Windows beyond the path's 166.4 segments queue at the sender; the links after the line
    // carry 2 Gbit/s away, so the line is the bottleneck and its FIFO orders the flows.
    EXPECT_TRUE(PortQueuesAsBottleneck(kLine, kRtt, 2e9, 167, tcp));
    // Windows that fit in the path build no queue.
    EXPECT_FALSE(PortQueuesAsBottleneck(kLine, kRtt, 2e9, 166, tcp));
    // Links after the line that carry no more than it (one 100 Mbit/s hub link below the
    // sender): they, not the sender's FIFO, decide the flows' order.
    EXPECT_FALSE(PortQueuesAsBottleneck(kLine, kRtt, kLine, 100000, tcp));
    EXPECT_FALSE(PortQueuesAsBottleneck(kLine, kRtt, 50e6, 100000, tcp));
}

} // namespace
} // namespace fedran
