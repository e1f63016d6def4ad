#include "analytic-tcp.h"

namespace fedran::test
{

double
AnalyticTcpTransferS(uint64_t bytes,
                     double rateBps,
                     double delayS,
                     uint32_t mss,
                     uint32_t overheadBytes,
                     uint32_t initialCwnd)
{
    const uint64_t segments = (bytes + mss - 1) / mss;
    const double segmentS = (mss + overheadBytes) * 8.0 / rateBps;
    const double rtt = 2.0 * delayS + segmentS;
    double time = rtt; // SYN, SYN-ACK; the data leaves with the handshake's ACK
    uint64_t sent = 0;
    uint64_t window = initialCwnd;
    // While a window serialises in less than an RTT the sender idles until the ACKs return.
    while (sent + window < segments && window * segmentS < rtt)
    {
        time += rtt;
        sent += window;
        window *= 2;
    }
    return time + (segments - sent) * segmentS + delayS;
}

} // namespace fedran::test
