#ifndef FEDRAN_MODELS_LEARNING_FORECAST_BASELINES_H
#define FEDRAN_MODELS_LEARNING_FORECAST_BASELINES_H

// The two forecasts any learned traffic forecaster must beat, scored on the same test split
// in the signal's original units: seasonal-naive (the same time one day earlier) and last-value
// persistence (the last value the model sees, `horizon` steps before the target).

#include "models/learning/traffic-series.h"
#include "models/learning/traffic-windows.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <span>

namespace fedran
{

/// Errors over all test points of all cells; nrmse = rmse / mean of the true values (the
/// CTTC challenge's definition), NaN when that mean is 0.
struct ForecastError
{
    double rmse = 0.0;
    double mae = 0.0;
    double nrmse = 0.0;
};

struct ForecastBaselines
{
    ForecastError seasonalNaive;
    ForecastError persistence;
    uint64_t points = 0; ///< test points scored (cells x test steps)
};

/// RMSE, MAE and NRMSE of `predicted` against `truth` (same length, at least one value).
ForecastError ScoreForecast(std::span<const double> truth, std::span<const double> predicted);

/// Both baselines on MakeForecastData's test split of `series` (same checks, same throws).
ForecastBaselines ComputeBaselines(const TrafficSeries& series, const ForecastWindows& windows);

/// {"seasonal_naive": {"nrmse", "rmse", "mae"}, "persistence": {...}, "points": n}, for run.json.
nlohmann::json BaselinesJson(const ForecastBaselines& baselines);

} // namespace fedran

#endif
