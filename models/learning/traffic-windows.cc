#include "models/learning/traffic-windows.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace fedran
{

namespace
{

SeriesScale
TrainingScale(const std::vector<double>& values, uint32_t testStart)
{
    double sum = 0.0;
    for (uint32_t t = 0; t < testStart; ++t)
    {
        sum += values[t];
    }
    const double mean = sum / testStart;
    double squares = 0.0;
    for (uint32_t t = 0; t < testStart; ++t)
    {
        squares += (values[t] - mean) * (values[t] - mean);
    }
    const double sd = std::sqrt(squares / testStart);
    // A constant training part (a silent cell) keeps its unit scale rather than dividing by 0.
    return {mean, sd > 0.0 ? sd : 1.0};
}

void
AppendExamples(const std::vector<double>& values,
               const SeriesScale& scale,
               uint32_t cell,
               uint32_t from,
               uint32_t to,
               uint32_t stepsPerDay,
               const ForecastWindows& w,
               Dataset& out)
{
    auto normal = [&](uint32_t t) {
        return static_cast<float>((values[t] - scale.offset) / scale.scale);
    };
    for (uint32_t t = from; t < to; ++t)
    {
        const uint32_t last = t - w.horizon;
        for (uint32_t i = 0; i < w.window; ++i)
        {
            out.x.push_back(normal(last - (w.window - 1) + i));
        }
        for (uint32_t d = w.periodDays; d >= 1; --d)
        {
            out.x.push_back(normal(t - d * stepsPerDay));
        }
        out.targets.push_back(normal(t));
        out.series.push_back(cell);
    }
}

} // namespace

ForecastSplit
SplitForecast(uint32_t steps, uint32_t stepsPerDay, const ForecastWindows& w)
{
    if (w.window == 0 || w.horizon == 0 || stepsPerDay == 0)
    {
        throw std::invalid_argument("window and horizon must be at least 1");
    }
    if (w.periodDays > 0 && w.horizon > stepsPerDay)
    {
        throw std::invalid_argument("horizon " + std::to_string(w.horizon) +
                                    " is longer than a day (" + std::to_string(stepsPerDay) +
                                    " steps): the period values would be later than the window");
    }
    ForecastSplit split;
    split.steps = steps;
    split.firstTarget = std::max<uint64_t>(uint64_t(w.window) + w.horizon - 1,
                                           uint64_t(w.periodDays) * stepsPerDay);
    const uint64_t test = uint64_t(w.testDays) * stepsPerDay;
    const uint64_t needed = std::max<uint64_t>(split.firstTarget + 1, stepsPerDay) + test;
    if (steps < needed)
    {
        throw DataError(std::to_string(steps) + " steps per cell are too few for test_days " +
                        std::to_string(w.testDays) + ", window " + std::to_string(w.window) +
                        " and period_days " + std::to_string(w.periodDays) + " (need " +
                        std::to_string(needed) +
                        ": a day and one training target before the test days)");
    }
    split.testStart = static_cast<uint32_t>(steps - test);
    return split;
}

TrainTestData
MakeForecastData(const TrafficSeries& series, const ForecastWindows& w)
{
    const ForecastSplit split = SplitForecast(series.Steps(), series.stepsPerDay, w);
    TrainTestData out;
    for (Dataset* d : {&out.train, &out.test})
    {
        d->features = w.window + w.periodDays;
        d->classes = 0;
        d->outputs = 1;
        d->sequence = w.window;
    }
    const auto cells = static_cast<uint32_t>(series.values.size());
    for (uint32_t k = 0; k < cells; ++k)
    {
        const std::vector<double>& values = series.values[k];
        const SeriesScale scale = TrainingScale(values, split.testStart);
        out.train.scales.push_back(scale);
        AppendExamples(values,
                       scale,
                       k,
                       split.firstTarget,
                       split.testStart,
                       series.stepsPerDay,
                       w,
                       out.train);
        AppendExamples(values,
                       scale,
                       k,
                       split.testStart,
                       split.steps,
                       series.stepsPerDay,
                       w,
                       out.test);
    }
    out.test.scales = out.train.scales;
    return out;
}

} // namespace fedran
