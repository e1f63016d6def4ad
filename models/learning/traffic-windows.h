#ifndef FEDRAN_MODELS_LEARNING_TRAFFIC_WINDOWS_H
#define FEDRAN_MODELS_LEARNING_TRAFFIC_WINDOWS_H

// Per-cell series to forecasting examples the way FedDA builds them (Zhang et al., INFOCOM
// 2021): a closeness window of recent steps plus the values at the same time on previous days,
// one value `horizon` steps ahead as target, the last days of every cell held out for the test.

#include "models/learning/dataset.h"
#include "models/learning/traffic-series.h"

#include <cstdint>

namespace fedran
{

struct ForecastWindows
{
    uint32_t window = 36;    ///< closeness: the last `window` steps (six hours at 10 min)
    uint32_t periodDays = 3; ///< period: the target's time of day on each of these past days
    uint32_t horizon = 1;    ///< the target is this many steps after the last closeness step
    uint32_t testDays = 7;   ///< the last days of every cell are the test split
};

/// First and one-past-last step of the training targets, and the test split's first step.
struct ForecastSplit
{
    uint32_t firstTarget = 0; ///< earliest step whose inputs all exist
    uint32_t testStart = 0;   ///< steps >= this are test targets; earlier ones training
    uint32_t steps = 0;
};

/**
 * Where the targets start and the test split begins for series of `steps` steps. Throws
 * std::invalid_argument for a zero window or horizon or a horizon longer than a day when
 * periodDays > 0 (the period values would lie after the closeness window), and DataError when
 * the series are too short to leave a day of training and one training target before the
 * last testDays days.
 */
ForecastSplit SplitForecast(uint32_t steps, uint32_t stepsPerDay, const ForecastWindows& windows);

/**
 * One example per cell and target step, cell by cell (in `series.cells` order), each in time
 * order. Row = the window values at t - horizon - window + 1 .. t - horizon, then the period
 * values at t - periodDays * day .. t - day (both oldest first); target = value at t. Training
 * targets are the steps before the last testDays days, test targets those days.
 *
 * Normalisation per cell, z-score with the mean and standard deviation (population) of that
 * cell's training steps only (steps before the test split), as FedDA: value' = (value -
 * mean) / sd, recorded in `scales` (offset mean, scale sd; sd 1 for a constant cell). `series`
 * holds the cell's index in `series.cells`. Both halves share the scales.
 */
TrainTestData MakeForecastData(const TrafficSeries& series, const ForecastWindows& windows);

} // namespace fedran

#endif
