#include "models/flow/prr-send-count.h"

#include <algorithm>
#include <cmath>

namespace fedran
{

double
PrrSendCount(const PrrInput& in)
{
    double sndcnt = 0.0;
    if (in.pipe > in.ssthresh)
    {
        // ceil(prrDelivered * ssThresh * 1.0 / RecoverFS) - prrOut, in bytes, where the first
        // product is taken in uint32_t (and wraps) before it is made a double.
        const uint32_t product =
            (in.prrDelivered * in.mss) * static_cast<uint32_t>(std::llround(in.ssthresh * in.mss));
        const double fs = std::max(1.0, in.recoverFs) * in.mss;
        sndcnt = (std::ceil(product * 1.0 / fs) - static_cast<double>(in.prrOut) * in.mss) / in.mss;
    }
    else
    {
        // limit = max(prrDelivered - prrOut, delivered) + MSS when the ACK covers retransmitted
        // data, else delivered. In uint32_t a negative difference wraps, wins the max, and
        // adding a segment wraps it back: prrDelivered - prrOut + 1 (0 or less sends nothing).
        const int64_t behind = static_cast<int64_t>(in.prrDelivered) - in.prrOut;
        const int64_t limit = !in.retransAcked ? static_cast<int64_t>(in.delivered)
                              : behind < 0     ? behind + 1
                                               : std::max<int64_t>(behind, in.delivered) + 1;
        sndcnt = static_cast<double>(
            std::min<int64_t>(limit, static_cast<int64_t>(in.ssthresh - in.pipe)));
    }
    return std::max(sndcnt, in.prrOut > 0 ? 0.0 : 1.0);
}

} // namespace fedran
