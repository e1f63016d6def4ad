#ifndef FEDRAN_MODELS_LEARNING_TRAFFIC_SERIES_H
#define FEDRAN_MODELS_LEARNING_TRAFFIC_SERIES_H

// Per-cell traffic time series in the signal's original units, as read from the Telecom Italia
// Milan files or generated look-alike, before they are cut into forecasting examples.

#include <cstdint>
#include <vector>

namespace fedran
{

/// Steps per day of the Milan data: 10-minute intervals.
constexpr uint32_t kMilanStepsPerDay = 144;
/// The Milan data's interval length in milliseconds.
constexpr int64_t kMilanStepMs = 600000;
/// The first interval of the Milan data, 2013-11-01 00:00 CET, in ms since the epoch.
constexpr int64_t kMilanFirstStampMs = 1383260400000;

struct TrafficSeries
{
    std::vector<uint32_t> cells;             ///< square ids, ascending; one series per id
    std::vector<std::vector<double>> values; ///< per cell, one value per step, no gaps
    uint32_t stepsPerDay = kMilanStepsPerDay;
    int64_t firstStampMs = kMilanFirstStampMs; ///< start of step 0
    uint64_t missing = 0; ///< (cell, step) values that were absent and filled (see the reader)

    uint32_t Steps() const
    {
        return values.empty() ? 0 : static_cast<uint32_t>(values.front().size());
    }
};

} // namespace fedran

#endif
