#ifndef FEDRAN_TESTS_LEARNING_MODEL_TEST_UTIL_H
#define FEDRAN_TESTS_LEARNING_MODEL_TEST_UTIL_H

// Helpers shared by the model tests: random data, a finite-difference gradient check against
// a double-precision reference loss, and a concurrency check.

#include "compression/rng.h"
#include "models/learning/dataset.h"
#include "models/learning/model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <thread>
#include <vector>

namespace fedran::test
{

/// Uniform [0, 1) features and uniform labels.
inline Dataset
RandomDataset(uint32_t examples, uint32_t features, uint32_t classes, uint64_t seed)
{
    Rng rng(seed);
    Dataset data;
    data.features = features;
    data.classes = classes;
    data.x.resize(size_t{examples} * features);
    for (auto& v : data.x)
    {
        v = static_cast<float>(rng.Uniform());
    }
    data.y.resize(examples);
    for (auto& label : data.y)
    {
        label = static_cast<uint8_t>(rng.UniformInt(classes));
    }
    return data;
}

/// Mean cross-entropy of one example's logits (double), from the definition.
inline double
CrossEntropy(const std::vector<double>& logits, uint8_t label)
{
    const double top = *std::max_element(logits.begin(), logits.end());
    double sumExp = 0.0;
    for (double z : logits)
    {
        sumExp += std::exp(z - top);
    }
    return top + std::log(sumExp) - logits[label];
}

using ReferenceLoss = std::function<double(const std::vector<double>& params)>;

/**
 * Checks model.LossAndGradient at `params` against `reference`, the same mean loss written
 * independently in double: the loss itself, then every gradient element against central
 * finite differences of the reference (relative error 1e-3, with an absolute floor of
 * 1e-3 * `floor` for derivatives near zero), and the whole gradient's relative error.
 */
inline void
ExpectGradientMatchesReference(const Model& model,
                               const std::vector<float>& params,
                               const Dataset& data,
                               const std::vector<uint32_t>& rows,
                               const ReferenceLoss& reference,
                               double floor = 1e-2)
{
    std::vector<float> grad(params.size(), -7.0f);
    const double loss = model.LossAndGradient(params, data, rows, grad);
    std::vector<double> point(params.begin(), params.end());
    EXPECT_NEAR(loss, reference(point), 1e-5 * std::max(1.0, std::abs(loss)));

    constexpr double kStep = 1e-5;
    double diffNorm = 0.0;
    double refNorm = 0.0;
    size_t failures = 0;
    for (size_t k = 0; k < params.size(); ++k)
    {
        std::vector<double> plus = point;
        std::vector<double> minus = point;
        plus[k] += kStep;
        minus[k] -= kStep;
        const double numeric = (reference(plus) - reference(minus)) / (2 * kStep);
        const double error = std::abs(grad[k] - numeric);
        if (error > 1e-3 * std::max(std::abs(numeric), floor) && ++failures <= 10)
        {
            ADD_FAILURE() << "parameter " << k << ": analytic " << grad[k] << ", numeric "
                          << numeric;
        }
        diffNorm += (grad[k] - numeric) * (grad[k] - numeric);
        refNorm += numeric * numeric;
    }
    EXPECT_EQ(failures, 0u);
    EXPECT_GT(refNorm, 0.0);
    EXPECT_LT(std::sqrt(diffNorm / refNorm), 1e-4);
}

/// `count` floats drawn uniformly from [-0.5, 0.5).
inline std::vector<float>
UniformFloats(size_t count, Rng& rng)
{
    std::vector<float> v(count);
    for (auto& x : v)
    {
        x = static_cast<float>(rng.Uniform() - 0.5);
    }
    return v;
}

/// Parameters from the model's own initialisation with a fixed seed.
inline std::vector<float>
InitialParams(const Model& model, uint64_t seed)
{
    std::vector<float> params(model.Layout().TotalSize());
    Rng rng(seed);
    model.InitParams(params, rng);
    return params;
}

/**
 * Four threads computing gradients at once on one model object, each many times on its own
 * parameters and batch (of differing sizes, so scratch buffers grow under contention), give
 * bit-identical results to the same calls made one after another.
 */
inline void
ExpectConcurrentCallsMatchSerial(const Model& model, const Dataset& data)
{
    constexpr int kThreads = 4;
    std::vector<std::vector<float>> params(kThreads);
    std::vector<std::vector<uint32_t>> batches(kThreads);
    for (int t = 0; t < kThreads; ++t)
    {
        Rng rng(100 + t);
        params[t] = InitialParams(model, 200 + t);
        for (int i = 0; i < 8 + 13 * t; ++i)
        {
            batches[t].push_back(static_cast<uint32_t>(rng.UniformInt(data.Size())));
        }
    }
    std::vector<std::vector<float>> serial(kThreads);
    std::vector<double> serialLoss(kThreads);
    for (int t = 0; t < kThreads; ++t)
    {
        serial[t].resize(params[t].size());
        serialLoss[t] = model.LossAndGradient(params[t], data, batches[t], serial[t]);
    }

    std::vector<std::vector<float>> parallel(kThreads);
    std::vector<double> parallelLoss(kThreads);
    std::vector<int> mismatches(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
    {
        parallel[t].resize(params[t].size());
        threads.emplace_back([&, t] {
            for (int repeat = 0; repeat < 20; ++repeat)
            {
                parallelLoss[t] = model.LossAndGradient(params[t], data, batches[t], parallel[t]);
                mismatches[t] += parallel[t] != serial[t] || parallelLoss[t] != serialLoss[t];
            }
        });
    }
    for (auto& thread : threads)
    {
        thread.join();
    }
    for (int t = 0; t < kThreads; ++t)
    {
        EXPECT_EQ(mismatches[t], 0) << "thread " << t;
    }
}

} // namespace fedran::test

#endif
