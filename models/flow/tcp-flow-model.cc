#include "models/flow/tcp-flow-model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fedran
{

uint64_t
Segments(uint64_t payloadBytes, const TcpFlowSettings& tcp)
{
    return std::max<uint64_t>(1, (payloadBytes + tcp.mss - 1) / tcp.mss);
}

uint64_t
DataWireBytes(uint64_t payloadBytes, const TcpFlowSettings& tcp)
{
    return payloadBytes + Segments(payloadBytes, tcp) * tcp.headerBytes;
}

uint64_t
AckWireBytes(uint64_t payloadBytes, const TcpFlowSettings& tcp)
{
    const uint64_t segments = Segments(payloadBytes, tcp);
    return (segments + tcp.segmentsPerAck - 1) / tcp.segmentsPerAck * tcp.ackBytes;
}

double
PathRttS(const std::vector<PathHop>& path, const TcpFlowSettings& tcp)
{
    const double segmentBits = (tcp.mss + tcp.headerBytes) * 8.0;
    double rtt = 0.0;
    for (const PathHop& hop : path)
    {
        rtt += 2.0 * hop.delayS;
        if (hop.capacityBps > 0.0)
        {
            rtt += segmentBits / hop.capacityBps;
        }
    }
    return rtt;
}

double
HandshakeRttS(const std::vector<PathHop>& path)
{
    double rtt = 0.0;
    for (const PathHop& hop : path)
    {
        rtt += 2.0 * hop.delayS;
        if (hop.capacityBps > 0.0)
        {
            rtt += 2.0 * kSynWireBytes * 8.0 / hop.capacityBps;
        }
    }
    return rtt;
}

double
PathLatencyS(const std::vector<PathHop>& path, const TcpFlowSettings& tcp, uint64_t payloadBytes)
{
    const double segmentBits =
        static_cast<double>(std::min<uint64_t>(payloadBytes, tcp.mss) + tcp.headerBytes) * 8.0;
    double latency = 0.0;
    double slowest = 0.0;
    double minCapacity = std::numeric_limits<double>::infinity();
    for (const PathHop& hop : path)
    {
        latency += hop.delayS;
        if (hop.capacityBps > 0.0)
        {
            const double serialise = segmentBits / hop.capacityBps;
            latency += serialise;
            if (hop.capacityBps < minCapacity)
            {
                minCapacity = hop.capacityBps;
                slowest = serialise;
            }
        }
    }
    return latency - slowest;
}

double
PathLoss(const std::vector<PathHop>& path)
{
    double through = 1.0;
    for (const PathHop& hop : path)
    {
        through *= 1.0 - std::clamp(hop.loss, 0.0, 1.0);
    }
    return 1.0 - through;
}

double
MathisRateBps(double rttS, double p, const TcpFlowSettings& tcp)
{
    if (p <= 0.0 || rttS <= 0.0)
    {
        return std::numeric_limits<double>::infinity();
    }
    // Mathis et al. count payload (MSS); a wire rate carries the headers too.
    const double segmentBits = (tcp.mss + tcp.headerBytes) * 8.0;
    return segmentBits / rttS * std::sqrt(1.5) / std::sqrt(p);
}

double
RateCapBps(double rttS, double p, const TcpFlowSettings& tcp)
{
    double cap = MathisRateBps(rttS, p, tcp);
    if (rttS > 0.0)
    {
        const double windowSegments = std::floor(tcp.maxWindowBytes / tcp.mss);
        cap = std::min(cap, windowSegments * (tcp.mss + tcp.headerBytes) * 8.0 / rttS);
    }
    return cap;
}

SlowStartResult
SlowStart(uint64_t payloadBytes,
          double rateBps,
          double rttS,
          uint64_t cwnd,
          const TcpFlowSettings& tcp)
{
    const uint64_t segments = Segments(payloadBytes, tcp);
    const uint64_t maxWindow =
        std::max<uint64_t>(1, static_cast<uint64_t>(tcp.maxWindowBytes / tcp.mss));
    SlowStartResult result;
    uint64_t window = std::max<uint64_t>(1, std::min(cwnd, maxWindow));
    // ns-3's slow start counts acknowledged bytes (TcpCubic, TcpNewReno: whole segments of
    // them, the rest carried in m_bytesAckedNotProcessed): a 28-byte message leaves the
    // window as it was, a message of 550.3 segments grows it by 550.
    result.cwndAfter = std::min(maxWindow, window + payloadBytes / tcp.mss);
    if (!(rateBps > 0.0) || !std::isfinite(rateBps))
    {
        return result;
    }
    const double segmentS = (tcp.mss + tcp.headerBytes) * 8.0 / rateBps;
    uint64_t sent = 0;
    uint64_t rounds = 0;
    // The same loop as the analytic model: a round that serialises in less than an RTT
    // idles for the rest of it.
    while (sent + window < segments && window * segmentS < rttS)
    {
        ++rounds;
        sent += window;
        window = std::min(maxWindow, window * 2);
    }
    result.idleS = std::max(0.0, rounds * rttS - sent * segmentS);
    return result;
}

double
AloneTransferS(uint64_t payloadBytes,
               const std::vector<PathHop>& path,
               uint64_t cwnd,
               const TcpFlowSettings& tcp)
{
    double bottleneck = std::numeric_limits<double>::infinity();
    for (const PathHop& hop : path)
    {
        bottleneck = std::min(bottleneck, hop.capacityBps);
    }
    const double rtt = PathRttS(path, tcp);
    const double rate = std::min(bottleneck, RateCapBps(rtt, PathLoss(path), tcp));
    const SlowStartResult ss = SlowStart(payloadBytes, rate, rtt, cwnd, tcp);
    return ss.idleS + DataWireBytes(payloadBytes, tcp) * 8.0 / rate +
           PathLatencyS(path, tcp, payloadBytes);
}

} // namespace fedran
