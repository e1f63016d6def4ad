#ifndef FEDRAN_TESTS_SIM_ANALYTIC_TCP_H
#define FEDRAN_TESTS_SIM_ANALYTIC_TCP_H

#include <cstdint>

namespace fedran::test
{

/**
 * Time for a loss-free TCP bulk transfer of `bytes` over a bottleneck of `rateBps` and
 * one-way delay `delayS`, from the client's connect() to the last byte at the receiver
 * (Kurose and Ross's slow-start latency model): the handshake (one RTT), then slow-start
 * rounds that each send a window (initial `initialCwnd` segments, doubling) and wait for the
 * first ACK while the window is shorter than the pipe, then the rest back to back at the line
 * rate, and the last packet's propagation delay:
 *
 *   T = RTT + k * RTT + (segments - sent in k rounds) * S + D,  S = wire bits per segment / R,
 *   RTT = 2 D + S, k = rounds whose window serialises in less than an RTT.
 *
 * Wire bytes per segment: `mss` + `overheadBytes` (TCP with timestamps 32, IPv4 20, PPP 2).
 */
double AnalyticTcpTransferS(uint64_t bytes,
                            double rateBps,
                            double delayS,
                            uint32_t mss = 1448,
                            uint32_t overheadBytes = 54,
                            uint32_t initialCwnd = 10);

} // namespace fedran::test

#endif
