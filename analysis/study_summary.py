#!/usr/bin/python3
"""The pieces every study script shares: each policy's time to a target over its seeds, how a
table cell shows it, the run of median time (for figures) and the study's common arguments."""
import pandas as pd

from targets import argparse_targets


def time_stats(group, target):
    """reached_T, time_T, time_min_T and time_max_T of a policy's runs (final.csv rows): how
    many seeds reached target T and the median, least and most simulated seconds to it."""
    times = group[f"time_to_{target.key}_s"].dropna()
    nan = float("nan")
    return {f"reached_{target.key}": len(times),
            f"time_{target.key}": times.median() if len(times) else nan,
            f"time_min_{target.key}": times.min() if len(times) else nan,
            f"time_max_{target.key}": times.max() if len(times) else nan}


def fmt_time(row, key):
    """`30.0 [20.0–40.0]`, `15.0` for one seed or equal times, `not reached`."""
    if pd.isna(row[f"time_{key}"]):
        return "not reached"
    text = f"{row[f'time_{key}']:.1f}"
    if row[f"time_max_{key}"] > row[f"time_min_{key}"]:
        text += f" [{row[f'time_min_{key}']:.1f}–{row[f'time_max_{key}']:.1f}]"
    return text


def median_time_run(group, target):
    """The run of a policy whose time to the target is the median (unreached ones last)."""
    ordered = group.sort_values(f"time_to_{target.key}_s", na_position="last")
    return ordered.iloc[(len(ordered) - 1) // 2]


def add_study_arguments(parser, default_targets):
    parser.add_argument("--targets", type=argparse_targets, default=default_targets,
                        help="targets of one metric, as collected by sweep.py")
    parser.add_argument("--figures", help="write the figures (PNG) here")
    parser.add_argument("--csv", help="also write the per-policy table")


def check_study_targets(parser, targets):
    """A study compares one metric that has a final value (accuracy or nrmse)."""
    if len({t.metric for t in targets}) > 1 or targets[0].final_column is None:
        parser.error("--targets: give targets of one metric with a final value "
                     "(accuracy or nrmse)")
