#ifndef FEDRAN_MODELS_FLOW_PRR_SEND_COUNT_H
#define FEDRAN_MODELS_FLOW_PRR_SEND_COUNT_H

// Proportional rate reduction as ns-3.37's TcpPrrRecovery::DoRecovery computes it (reduction
// bound SSRB), with the arithmetic that decides what a recovering flow sends: ns-3 counts in
// bytes and in uint32_t, so a share below one segment sends nothing, prrDelivered * ssThresh
// wraps past 2^32, and max(prrDelivered - prrOut, delivered) wraps when more was sent than
// delivered. The port micro-simulation (port-micro-sim.h) calls it on every ACK in recovery.

#include <cstdint>

namespace fedran
{

struct PrrInput
{
    uint32_t prrDelivered = 0; ///< segments delivered since recovery began, this ACK's included
    int64_t prrOut = 0;        ///< segments sent since recovery began
    double recoverFs = 0.0;    ///< segments outstanding when recovery began (RecoverFS)
    double ssthresh = 0.0;     ///< segments
    double pipe = 0.0;         ///< segments in flight (BytesInFlight) before this ACK's sends
    uint32_t delivered = 0;    ///< segments this ACK delivered
    bool retransAcked = false; ///< the ACK covers retransmitted data (m_isRetransDataAcked)
    uint32_t mss = 1448;       ///< bytes per segment
};

/// The window PRR sets, less the pipe, in segments (sndcnt; a fraction where ns-3's byte count
/// is not whole, and a sender sends only whole segments): at least one segment while nothing
/// has been sent in recovery (the fast retransmit).
double PrrSendCount(const PrrInput& in);

} // namespace fedran

#endif
