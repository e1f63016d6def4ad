#!/usr/bin/python3
"""Writes the LTE-uplink backhaul traces of scenarios/trace-driven.json into this folder (or
--out DIR): /usr/bin/python3 scenarios/traces/make-lte-traces.py [--out DIR]. The shipped files
are its output; a test checks that it still writes them byte for byte.

A small cell site backhauled over a commercial LTE network sees the uplink share the macro
cell's scheduler gives it. Each trace is 300 s at 1 s resolution (time_s,rate_bps,delay_ms),
drawn from a fixed seed, from this model (parameters typical of published LTE uplink
measurements; synthetic, not a capture):
- SINR (dB): an Ornstein-Uhlenbeck process, mean MEAN_SINR_DB, standard deviation 5 dB,
  correlation time 10 s (shadowing as the site's terminal sees it, fast fading averaged
  over a second).
- Spectral efficiency: truncated Shannon, 0.6 x log2(1 + SINR), at most 4.4 bit/s/Hz (uplink
  64-QAM), none below -10 dB; 20 MHz carrier of which 90% carries data (PUCCH, SRS).
- Other users: the site gets 1/(1 + n) of the resource blocks, n other active uplink users,
  a birth-death process (arrivals 0.15/s, each leaving at 0.1/s: 1.5 on average).
- Interruptions (handover, radio-link failure): Poisson, one per 90 s on average, 1-4 s
  at rate 0.
- One-way delay: 20 ms (uplink scheduling grant, S1 to the core) + 8 ms per other active
  user (queueing in the busier cell) + 0-5 ms jitter.
"""
import argparse
import os

import numpy as np

STEP_S = 1.0
LENGTH_S = 300
CARRIER_HZ = 20e6 * 0.9
TRACES = {"lte-uplink-good.csv": (14.0, 11), "lte-uplink-edge.csv": (2.0, 12)}  # SINR, seed


def trace(mean_sinr_db, seed):
    rng = np.random.default_rng(seed)
    rho = np.exp(-STEP_S / 10.0)
    sinr = mean_sinr_db + 5.0 * rng.standard_normal()
    users = rng.poisson(1.5)
    outage_left = 0
    rows = []
    for i in range(int(LENGTH_S / STEP_S)):
        sinr = mean_sinr_db + rho * (sinr - mean_sinr_db) \
            + 5.0 * np.sqrt(1 - rho * rho) * rng.standard_normal()
        users += rng.poisson(0.15 * STEP_S) - rng.binomial(users, 1 - np.exp(-0.1 * STEP_S))
        if outage_left == 0 and rng.random() < STEP_S / 90.0:
            outage_left = int(rng.integers(1, 5))
        efficiency = 0.0 if sinr < -10 else min(0.6 * np.log2(1 + 10 ** (sinr / 10)), 4.4)
        rate = 0 if outage_left else int(round(CARRIER_HZ * efficiency / (1 + users), -3))
        outage_left = max(outage_left - 1, 0)
        delay = 20 + 8 * users + rng.uniform(0, 5)
        rows.append(f"{i * STEP_S:g},{rate},{delay:.1f}")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                        help="folder to write the traces into (default: this script's)")
    folder = parser.parse_args().out
    for name, (mean_sinr_db, seed) in TRACES.items():
        with open(os.path.join(folder, name), "w") as out:
            out.write("time_s,rate_bps,delay_ms\n" + "\n".join(trace(mean_sinr_db, seed)) + "\n")
        print(os.path.join(folder, name))


if __name__ == "__main__":
    main()
