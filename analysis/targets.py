#!/usr/bin/python3
"""Quality targets of the sweeps and study scripts: `0.8` (test accuracy) or `metric=value`.

A target names a rounds.csv quality column and the direction in which it improves: accuracy
rises, a forecast error (nrmse, rmse, mae) or the test loss falls. A target is reached in the
first round whose value is at least (higher is better) or at most (lower is better) the target.
The summary columns it names keep the historical form for accuracy (`rounds_to_0.8`,
`time_to_0.8_s`) and carry the metric otherwise (`rounds_to_nrmse_0.26`,
`time_to_nrmse_0.26_s`). Standard library only, plus pandas frames passed in by the caller.
"""
import trace_schema

# name -> (rounds.csv column, True when higher is better, final.csv column or None)
METRICS = {"accuracy": ("test_accuracy", True, "final_accuracy"),
           "nrmse": ("test_nrmse", False, "final_nrmse"),
           "rmse": ("test_rmse", False, None),
           "mae": ("test_mae", False, None),
           "loss": ("test_loss", False, None)}
trace_schema.require("rounds.csv", [column for column, _, _ in METRICS.values()])


class TargetError(ValueError):
    """A target that is not a number or `metric=number` with a known metric."""


class Target:
    """One target: `Target("accuracy", 0.8)` or `Target("nrmse", 0.26)`."""

    def __init__(self, metric, value):
        self.metric, self.value = metric, value
        self.column, self.higher_is_better, self.final_column = METRICS[metric]
        self.key = f"{value:g}" if metric == "accuracy" else f"{metric}_{value:g}"

    def __str__(self):
        return self.key if self.metric == "accuracy" else f"{self.metric}={self.value:g}"

    def label(self):
        """For table headings: `0.8` (accuracy, as the pages always wrote it), `NRMSE 0.26`."""
        if self.metric == "accuracy":
            return f"{self.value:g}"
        return f"{self.metric.upper()} {self.value:g}"

    def quality_name(self):
        """`accuracy` or the metric in capitals (`NRMSE`), for headings of final values."""
        return "accuracy" if self.metric == "accuracy" else self.metric.upper()

    def reached(self, rounds):
        """The rows of a rounds frame at or past the target."""
        values = rounds[self.column]
        return rounds[values >= self.value] if self.higher_is_better \
            else rounds[values <= self.value]

    def better(self, a, b):
        """True when quality a is better than quality b."""
        return a > b if self.higher_is_better else a < b


def parse_target(item):
    """`0.8` or `metric=value`; TargetError naming the item otherwise."""
    item = item.strip()
    metric, _, value = item.rpartition("=")
    metric = metric.strip() or "accuracy"
    if metric not in METRICS:
        raise TargetError(f"unknown metric '{metric}' in '{item}' (one of {', '.join(METRICS)})")
    try:
        number = float(value)
    except ValueError:
        raise TargetError(f"'{item}' is not a number or metric=number")
    if metric == "accuracy" and not 0 < number <= 1:
        raise TargetError(f"accuracies must lie in (0, 1], got '{item}'")
    if metric != "accuracy" and not number > 0:
        raise TargetError(f"{metric} targets must be positive, got '{item}'")
    return Target(metric, number)


def parse_targets(text):
    """A comma-separated list of targets (empty items ignored)."""
    return [parse_target(item) for item in text.split(",") if item.strip()]


def argparse_target(text):
    """For argparse `type=`: a bad target becomes argparse's usage error (exit 2)."""
    import argparse
    try:
        return parse_target(text)
    except TargetError as e:
        raise argparse.ArgumentTypeError(str(e))


def argparse_targets(text):
    import argparse
    try:
        targets = parse_targets(text)
    except TargetError as e:
        raise argparse.ArgumentTypeError(str(e))
    if not targets:
        raise argparse.ArgumentTypeError("no target given")
    return targets
