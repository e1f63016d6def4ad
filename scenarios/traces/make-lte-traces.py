#!/usr/bin/python3
"""Writes the LTE backhaul traces (uplink and downlink) of scenarios/trace-driven.json into this folder (or
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
The downlink of the same site (lte-downlink-*.csv) shares the uplink's other users and
interruptions, step by step; its own draws come from a second generator, so the uplink files
are what they were before there was a downlink:
- SINR: the same process, 6 dB higher on average (the eNB's 43 dBm against the UE's 23 dBm,
  partly offset by the UE's higher noise figure and the eNB's larger noise bandwidth), its
  own shadowing draws.
- Spectral efficiency: 0.6 x log2(1 + SINR), at most 5.5 bit/s/Hz (downlink 64-QAM, 2x2 MIMO
  averaged down by rank), the same 20 MHz and 90%, shared with the same other users.
- One-way delay: 10 ms (no scheduling request: the eNB schedules the downlink itself) + 4 ms
  per other active user + 0-3 ms jitter.
"""
import argparse
import os

import numpy as np

STEP_S = 1.0
LENGTH_S = 300
CARRIER_HZ = 20e6 * 0.9
TRACES = {"good": (14.0, 11), "edge": (2.0, 12)}  # SINR, seed
DOWNLINK_SINR_GAIN_DB = 6.0
DOWNLINK_MAX_EFFICIENCY = 5.5


def trace(mean_sinr_db, seed):
    """The uplink's rows and the downlink's rows of one site."""
    rng = np.random.default_rng(seed)
    down_rng = np.random.default_rng([seed, 1])
    down_mean = mean_sinr_db + DOWNLINK_SINR_GAIN_DB
    down_sinr = down_mean + 5.0 * down_rng.standard_normal()
    down_rows = []
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
        interrupted = outage_left > 0
        rate = 0 if outage_left else int(round(CARRIER_HZ * efficiency / (1 + users), -3))
        outage_left = max(outage_left - 1, 0)
        delay = 20 + 8 * users + rng.uniform(0, 5)
        rows.append(f"{i * STEP_S:g},{rate},{delay:.1f}")
        down_sinr = down_mean + rho * (down_sinr - down_mean) \
            + 5.0 * np.sqrt(1 - rho * rho) * down_rng.standard_normal()
        down_efficiency = 0.0 if down_sinr < -10 else \
            min(0.6 * np.log2(1 + 10 ** (down_sinr / 10)), DOWNLINK_MAX_EFFICIENCY)
        down_rate = 0 if interrupted else \
            int(round(CARRIER_HZ * down_efficiency / (1 + users), -3))
        down_delay = 10 + 4 * users + down_rng.uniform(0, 3)
        down_rows.append(f"{i * STEP_S:g},{down_rate},{down_delay:.1f}")
    return rows, down_rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                        help="folder to write the traces into (default: this script's)")
    folder = parser.parse_args().out
    for site, (mean_sinr_db, seed) in TRACES.items():
        for direction, rows in zip(("uplink", "downlink"), trace(mean_sinr_db, seed)):
            name = os.path.join(folder, f"lte-{direction}-{site}.csv")
            with open(name, "w") as out:
                out.write("time_s,rate_bps,delay_ms\n" + "\n".join(rows) + "\n")
            print(name)


if __name__ == "__main__":
    main()
