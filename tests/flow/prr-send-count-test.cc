// Proportional rate reduction with ns-3.37's arithmetic (models/flow/prr-send-count.h). The
// first two cases are ACKs of hub-30's first round traced in packet-level ns-3 (the sockets'
// CongestionWindow and BytesInFlight traces, docs/flow-validation.md).

#include "models/flow/prr-send-count.h"

#include <gtest/gtest.h>

namespace fedran
{
namespace
{

TEST(PrrSendCount, AShareBelowOneSegmentSendsNothing)
{
    // Second ACK of a recovery: 2 segments delivered, the fast retransmit sent, RecoverFS 28,
    // ssthresh 18, 23 in flight. ceil(2896 * 26064 / 40544) - 1448 = 414 bytes: ns-3 set the
    // window to the flight plus 414 bytes and sent nothing (whole segments would send one).
    PrrInput in;
    in.prrDelivered = 2;
    in.prrOut = 1;
    in.recoverFs = 28;
    in.ssthresh = 18;
    in.pipe = 23;
    in.delivered = 1;
    const double sndcnt = PrrSendCount(in);
    EXPECT_DOUBLE_EQ(sndcnt, 414.0 / 1448.0);
    EXPECT_LT(sndcnt, 1.0);
}

TEST(PrrSendCount, MoreSentThanDeliveredWrapsToNothingOnARetransmissionsAck)
{
    // Below ssthresh (23 in flight, ssthresh 29), an ACK covering one retransmitted segment.
    // With prrDelivered one behind prrOut, ns-3's uint32_t max(prrDelivered - prrOut,
    // delivered) + MSS wraps to 0: the window stays at the flight (ns-3 sent nothing on every
    // other such ACK). Level with it, the bound is max(0, 1) + 1 = 2 segments.
    PrrInput in;
    in.prrOut = 21;
    in.ssthresh = 29;
    in.pipe = 23;
    in.delivered = 1;
    in.retransAcked = true;
    in.prrDelivered = 20;
    EXPECT_DOUBLE_EQ(PrrSendCount(in), 0.0);
    in.prrDelivered = 21;
    EXPECT_DOUBLE_EQ(PrrSendCount(in), 2.0);
    // Two behind: the wrapped sum is negative, still nothing (not the ACK's one segment).
    in.prrDelivered = 19;
    EXPECT_DOUBLE_EQ(PrrSendCount(in), 0.0);
    // Without retransmitted data the bound is what the ACK delivered.
    in.retransAcked = false;
    EXPECT_DOUBLE_EQ(PrrSendCount(in), 1.0);
}

TEST(PrrSendCount, TheDeliveredTimesSsthreshProductWrapsPast32Bits)
{
    // 100 segments delivered, ssthresh 30: 144800 * 43440 = 6,290,112,000 bytes^2 wraps to
    // 1,995,144,704; over RecoverFS 60 segments (86,880 bytes) that is 22,965 bytes, below the
    // 57,920 already sent: nothing. Without the wrap PRR would allow 10 segments.
    PrrInput in;
    in.prrDelivered = 100;
    in.prrOut = 40;
    in.recoverFs = 60;
    in.ssthresh = 30;
    in.pipe = 45;
    in.delivered = 1;
    EXPECT_DOUBLE_EQ(PrrSendCount(in), 0.0);
    // A product below 2^32: 10 delivered, ceil(14480 * 43440 / 86880) - 2 * 1448 = 4344 bytes.
    in.prrDelivered = 10;
    in.prrOut = 2;
    EXPECT_DOUBLE_EQ(PrrSendCount(in), 3.0);
}

TEST(PrrSendCount, TheFastRetransmitIsAlwaysAllowed)
{
    // Nothing sent in recovery yet: one segment whatever the proportion says.
    PrrInput in;
    in.prrDelivered = 1;
    in.prrOut = 0;
    in.recoverFs = 100;
    in.ssthresh = 10;
    in.pipe = 90;
    EXPECT_DOUBLE_EQ(PrrSendCount(in), 1.0);
}

} // namespace
} // namespace fedran
