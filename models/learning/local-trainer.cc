#include "models/learning/local-trainer.h"

#include "compression/portable-math.h"
#include "models/learning/sgd-step.h"
#include "models/learning/shuffle.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

namespace fedran
{

namespace
{

using sgd::HookedStep;
using sgd::PickStep;
using sgd::StepBuffers;
using sgd::StepCoefficients;
using sgd::StepFunction;

void
RequireNonNegative(double value, const char* name)
{
    if (!(value >= 0.0) || !std::isfinite(value))
    {
        throw std::invalid_argument(std::string("TrainingConfig: ") + name +
                                    " must be finite and >= 0, got " + std::to_string(value));
    }
}

} // namespace

LrSchedule
ParseLrSchedule(std::string_view name)
{
    for (LrSchedule s :
         {LrSchedule::Constant, LrSchedule::Step, LrSchedule::Exponential, LrSchedule::Cosine})
    {
        if (name == LrScheduleName(s))
        {
            return s;
        }
    }
    throw std::invalid_argument("unknown lr schedule \"" + std::string(name) +
                                "\" (expected constant, step, exponential or cosine)");
}

std::string_view
LrScheduleName(LrSchedule schedule)
{
    switch (schedule)
    {
        case LrSchedule::Constant:
            return "constant";
        case LrSchedule::Step:
            return "step";
        case LrSchedule::Exponential:
            return "exponential";
        case LrSchedule::Cosine:
            return "cosine";
    }
    return "?";
}

void
ValidateTrainingConfig(const TrainingConfig& config)
{
    if (config.batchSize == 0)
    {
        throw std::invalid_argument("TrainLocal: batchSize must be > 0");
    }
    // momentum >= 1 never forgets a gradient, so the steps grow without bound.
    if (!(config.momentum >= 0.0 && config.momentum < 1.0))
    {
        throw std::invalid_argument("TrainingConfig: momentum must be in [0, 1), got " +
                                    std::to_string(config.momentum));
    }
    RequireNonNegative(config.weightDecay, "weightDecay");
    RequireNonNegative(config.proxMu, "proxMu");
    RequireNonNegative(config.lrDecay, "lrDecay");
    if (config.lrSchedule == LrSchedule::Step && config.lrStepRounds == 0)
    {
        throw std::invalid_argument("TrainingConfig: lrStepRounds must be > 0 for step");
    }
    if (config.lrSchedule == LrSchedule::Cosine && config.totalRounds == 0)
    {
        throw std::invalid_argument("TrainingConfig: totalRounds must be > 0 for cosine");
    }
}

double
LearningRate(const TrainingConfig& config, uint32_t round)
{
    if (round == 0)
    {
        throw std::invalid_argument("LearningRate: rounds start at 1");
    }
    const uint32_t past = round - 1; // rounds completed before this one
    switch (config.lrSchedule)
    {
        case LrSchedule::Constant:
            return config.lr;
        case LrSchedule::Step:
            if (config.lrStepRounds == 0)
            {
                throw std::invalid_argument("TrainingConfig: lrStepRounds must be > 0 for step");
            }
            return config.lr *
                   pmath::Pow(config.lrDecay, static_cast<double>(past / config.lrStepRounds));
        case LrSchedule::Exponential:
            return config.lr * pmath::Pow(config.lrDecay, static_cast<double>(past));
        case LrSchedule::Cosine: {
            if (config.totalRounds == 0)
            {
                throw std::invalid_argument("TrainingConfig: totalRounds must be > 0 for cosine");
            }
            // Past the planned end the cosine would climb again; hold it at 0 instead.
            const double progress =
                static_cast<double>(std::min(past, config.totalRounds)) / config.totalRounds;
            return config.lr * 0.5 * (1.0 + pmath::Cos(std::numbers::pi * progress));
        }
    }
    throw std::invalid_argument("LearningRate: unknown schedule");
}

uint64_t
LocalExamples(const TrainingConfig& config, uint32_t samples)
{
    const uint64_t n = samples;
    if (config.localSteps == 0)
    {
        return n * config.localEpochs;
    }
    if (n == 0 || config.batchSize == 0)
    {
        return 0;
    }
    // Whole epochs, then the first batches of one more epoch: all full, since only an epoch's
    // last batch can be partial.
    const uint64_t stepsPerEpoch = (n + config.batchSize - 1) / config.batchSize;
    const uint64_t epochs = config.localSteps / stepsPerEpoch;
    const uint64_t rest = config.localSteps % stepsPerEpoch;
    return epochs * n + rest * config.batchSize;
}

uint64_t
LastStepExamples(const TrainingConfig& config, uint32_t samples)
{
    const uint64_t n = samples;
    const uint64_t b = config.batchSize;
    if (n == 0 || b == 0)
    {
        return 0;
    }
    const uint64_t stepsPerEpoch = (n + b - 1) / b;
    const uint64_t partial = n % b;
    const uint64_t steps =
        config.localSteps > 0 ? config.localSteps : stepsPerEpoch * config.localEpochs;
    if (steps == 0)
    {
        return 0;
    }
    // Steps walk the epochs' batches in order; only an epoch's last one may be partial.
    const uint64_t index = (steps - 1) % stepsPerEpoch;
    return index == stepsPerEpoch - 1 && partial != 0 ? partial : b;
}

TrainingResult
TrainLocal(const Model& model,
           std::span<const float> start,
           const Dataset& data,
           std::span<const uint32_t> indices,
           const TrainingConfig& config,
           uint32_t round,
           Rng& rng,
           StepHook* hook)
{
    const size_t size = model.Layout().TotalSize();
    if (start.size() != size)
    {
        throw std::invalid_argument("TrainLocal: start has " + std::to_string(start.size()) +
                                    " floats, the model has " + std::to_string(size));
    }
    ValidateTrainingConfig(config);
    if (indices.size() > std::numeric_limits<uint32_t>::max())
    {
        throw std::invalid_argument("TrainLocal: too many indices");
    }
    if (hook != nullptr && config.momentum != 0.0)
    {
        // The hook's direction is already a velocity: momentum twice would compound it.
        throw std::invalid_argument("TrainLocal: a step hook replaces momentum, which must be 0");
    }

    TrainingResult result;
    result.samples = static_cast<uint32_t>(indices.size());
    const bool useMomentum = config.momentum > 0.0;
    const StepCoefficients coefficients{static_cast<float>(LearningRate(config, round)),
                                        static_cast<float>(config.momentum),
                                        static_cast<float>(config.weightDecay),
                                        static_cast<float>(config.proxMu)};
    const bool measure = config.measureGradVariance;
    const StepFunction step =
        PickStep(useMomentum, config.weightDecay > 0.0, config.proxMu > 0.0, measure);

    std::vector<float> params(start.begin(), start.end());
    // Two gradient buffers used in turn, so that a step can read the previous minibatch's
    // gradient (for gradVariance) without a copy.
    std::vector<float> gradients[2] = {std::vector<float>(size),
                                       std::vector<float>(measure ? size : 0)};
    std::vector<float> velocity(useMomentum ? size : 0, 0.0f);
    std::vector<float> direction(hook != nullptr ? size : 0);
    if (hook != nullptr)
    {
        hook->BeginSteps(LearningRate(config, round));
    }
    std::vector<uint32_t> order(indices.begin(), indices.end());
    const size_t n = order.size();
    // In step mode the epochs run until the step budget is spent.
    const bool countSteps = config.localSteps > 0;
    const uint64_t maxEpochs =
        countSteps ? std::numeric_limits<uint64_t>::max() : uint64_t{config.localEpochs};

    double lossSum = 0.0;
    double differenceSquares = 0.0; // sum over b >= 2 of ||g_b - g_(b-1)||^2
    bool done = n == 0;
    for (uint64_t epoch = 0; epoch < maxEpochs && !done; ++epoch)
    {
        Shuffle(std::span<uint32_t>(order), rng);
        for (size_t begin = 0; begin < n; begin += config.batchSize)
        {
            const size_t count = std::min<size_t>(config.batchSize, n - begin);
            const std::span<const uint32_t> batch(order.data() + begin, count);
            const uint32_t current = measure ? result.steps % 2 : 0;
            std::vector<float>& grad = gradients[current];
            lossSum += model.LossAndGradient(params, data, batch, grad);
            // The first step has no predecessor: comparing it with itself adds exactly 0.
            const float* previous =
                measure && result.steps > 0 ? gradients[1 - current].data() : grad.data();
            const StepBuffers buffers{params.data(),
                                      grad.data(),
                                      previous,
                                      start.data(),
                                      velocity.data(),
                                      size};
            differenceSquares += hook != nullptr
                                     ? HookedStep(buffers, coefficients, measure, direction, *hook)
                                     : step(buffers, coefficients);
            ++result.steps;
            result.examplesProcessed += count;
            if (countSteps && result.steps == config.localSteps)
            {
                done = true;
                break;
            }
        }
    }
    result.meanLoss = result.steps > 0 ? lossSum / result.steps : 0.0;
    result.gradVariance = result.steps > 1 ? differenceSquares / (2.0 * (result.steps - 1)) : 0.0;
    if (hook != nullptr)
    {
        hook->EndSteps(result);
    }

    // The update is formed in place in the params buffer: one allocation fewer per round.
    result.updateNorm = std::sqrt(sgd::FormUpdate(params.data(), start.data(), size));
    result.update = std::move(params);
    return result;
}

TrainingResult
TrainLocal(const Model& model,
           std::span<const float> start,
           const Dataset& data,
           std::span<const uint32_t> indices,
           const TrainingConfig& config,
           Rng& rng)
{
    if (config.lrSchedule != LrSchedule::Constant)
    {
        throw std::invalid_argument("TrainLocal: the " +
                                    std::string(LrScheduleName(config.lrSchedule)) +
                                    " schedule needs the round number");
    }
    return TrainLocal(model, start, data, indices, config, 1, rng);
}

} // namespace fedran
