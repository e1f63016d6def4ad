#include "models/learning/forecast-baselines.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace fedran
{

ForecastError
ScoreForecast(std::span<const double> truth, std::span<const double> predicted)
{
    if (truth.empty() || truth.size() != predicted.size())
    {
        throw std::invalid_argument("a forecast score needs equally many (>0) true and "
                                    "predicted values");
    }
    double squares = 0.0;
    double absolute = 0.0;
    double sum = 0.0;
    for (size_t i = 0; i < truth.size(); ++i)
    {
        const double error = predicted[i] - truth[i];
        squares += error * error;
        absolute += std::abs(error);
        sum += truth[i];
    }
    const auto n = static_cast<double>(truth.size());
    ForecastError out;
    out.rmse = std::sqrt(squares / n);
    out.mae = absolute / n;
    const double mean = sum / n;
    out.nrmse = mean != 0.0 ? out.rmse / mean : std::numeric_limits<double>::quiet_NaN();
    return out;
}

ForecastBaselines
ComputeBaselines(const TrafficSeries& series, const ForecastWindows& windows)
{
    const ForecastSplit split = SplitForecast(series.Steps(), series.stepsPerDay, windows);
    std::vector<double> truth;
    std::vector<double> seasonal;
    std::vector<double> persistence;
    for (const std::vector<double>& values : series.values)
    {
        // SplitForecast leaves at least a day before testStart, so t - stepsPerDay exists.
        for (uint32_t t = split.testStart; t < split.steps; ++t)
        {
            truth.push_back(values[t]);
            seasonal.push_back(values[t - series.stepsPerDay]);
            persistence.push_back(values[t - windows.horizon]);
        }
    }
    ForecastBaselines out;
    out.points = truth.size();
    if (truth.empty())
    {
        throw DataError("no test points to score the baselines on");
    }
    out.seasonalNaive = ScoreForecast(truth, seasonal);
    out.persistence = ScoreForecast(truth, persistence);
    return out;
}

nlohmann::json
BaselinesJson(const ForecastBaselines& baselines)
{
    auto entry = [](const ForecastError& e) {
        return nlohmann::json{{"nrmse", e.nrmse}, {"rmse", e.rmse}, {"mae", e.mae}};
    };
    return {{"seasonal_naive", entry(baselines.seasonalNaive)},
            {"persistence", entry(baselines.persistence)},
            {"points", baselines.points}};
}

} // namespace fedran
