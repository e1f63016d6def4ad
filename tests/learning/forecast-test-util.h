#ifndef FEDRAN_TESTS_LEARNING_FORECAST_TEST_UTIL_H
#define FEDRAN_TESTS_LEARNING_FORECAST_TEST_UTIL_H

// Forecasting datasets for the forecaster tests: random rows, and windows cut from a sine.

#include "compression/portable-math.h"
#include "compression/rng.h"
#include "models/learning/dataset.h"

#include <cmath>
#include <cstdint>
#include <numbers>

namespace fedran::test
{

/// `examples` rows of `sequence` window values and `side` side values, uniform in [-1, 1), with
/// `outputs` targets each, alternating between two series of different scales.
inline Dataset
RandomForecastDataset(uint32_t examples,
                      uint32_t sequence,
                      uint32_t side,
                      uint32_t outputs,
                      uint64_t seed)
{
    Rng rng(seed);
    Dataset data;
    data.features = sequence + side;
    data.sequence = sequence;
    data.outputs = outputs;
    data.x.resize(size_t{examples} * data.features);
    for (auto& v : data.x)
    {
        v = static_cast<float>(2.0 * rng.Uniform() - 1.0);
    }
    data.targets.resize(size_t{examples} * outputs);
    for (auto& v : data.targets)
    {
        v = static_cast<float>(2.0 * rng.Uniform() - 1.0);
    }
    for (uint32_t i = 0; i < examples; ++i)
    {
        data.series.push_back(i % 2);
    }
    data.scales = {{10.0, 2.0}, {1000.0, 100.0}};
    return data;
}

/**
 * Windows of `sequence` steps of sin(2 pi t / period) plus uniform noise of
 * amplitude `noise`, each predicting the next value; one series, unit scale. Rows start at
 * `first`, one per step.
 */
inline Dataset
SineWindows(uint32_t examples, uint32_t sequence, uint32_t first, double noise, uint64_t seed)
{
    constexpr double kPeriod = 24.0;
    Rng rng(seed);
    const auto value = [&](uint32_t t) {
        return static_cast<float>(pmath::Sin(2.0 * std::numbers::pi * t / kPeriod) +
                                  noise * (2.0 * rng.Uniform() - 1.0));
    };
    Dataset data;
    data.features = sequence;
    data.sequence = sequence;
    data.outputs = 1;
    for (uint32_t i = 0; i < examples; ++i)
    {
        for (uint32_t t = 0; t < sequence; ++t)
        {
            data.x.push_back(value(first + i + t));
        }
        data.targets.push_back(value(first + i + sequence));
        data.series.push_back(0);
    }
    data.scales = {{0.0, 1.0}};
    return data;
}

} // namespace fedran::test

#endif
