#include "models/learning/local-trainer.h"

#include "compression/portable-math.h"
#include "models/learning/eigen-config.h"
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

/// The per-step coefficients of the update rule, as floats like the parameters.
struct StepCoefficients
{
    float lr;
    float momentum;
    float weightDecay;
    float proxMu;
};

/// The buffers one step reads and writes, all of the model's size (velocity only if used).
struct StepBuffers
{
    float* params;
    const float* grad;     ///< this step's minibatch gradient g_b
    const float* previous; ///< g_(b-1), or grad itself on the first step
    const float* start;
    float* velocity;
    size_t size;
};

/// A step works through the parameters in chunks of this many, small enough for their
/// gradient differences to stay in L1 between the update loop and the sum of their squares.
constexpr size_t kChunk = 256;

/**
 * sum_k d[k]^2 over n <= kChunk values. In float, so that it vectorises, and by Eigen, whose
 * reduction uses several SIMD accumulators: left to itself the compiler may not reorder a
 * float sum without -ffast-math, and once merged into the step's loop it did reduce lane by
 * lane, a serial chain that cost more than the whole update. Few terms per float sum keep the
 * error at a few float roundings; the chunks are summed in double.
 */
double
SumOfSquares(const float* d, size_t n)
{
    return Eigen::Map<const Eigen::ArrayXf>(d, static_cast<Eigen::Index>(n)).square().sum();
}

/**
 * One step over every parameter: the SGD update and, with kVariance, ||g_b - g_(b-1)||^2 for
 * gradVariance, returned (else 0). The difference rides along in the update's pass, so the
 * statistic costs one extra read of a gradient-sized buffer per step, no write.
 *
 * Each combination of the optional terms compiles to its own loop, so that no branch sits in
 * the loop and plain SGD stays exactly w -= lr g: adding 0 * v or 0 * w terms would already
 * change signed zeros, and turn an infinite weight into NaN. The buffers are distinct
 * allocations (previous == grad on the first step, but both are only read); __restrict says
 * so, without which the compiler gives up vectorising the variants with the most buffers (it
 * versions loops for only so many aliasing pairs).
 */
template<bool kMomentum, bool kDecay, bool kProx, bool kVariance>
double
StepKernel(float* __restrict params,
           const float* __restrict grad,
           const float* __restrict previous,
           const float* __restrict start,
           float* __restrict velocity,
           size_t size,
           StepCoefficients c)
{
    float d[kChunk];
    double squares = 0.0;
    for (size_t begin = 0; begin < size; begin += kChunk)
    {
        const size_t n = std::min(kChunk, size - begin);
        for (size_t k = begin; k < begin + n; ++k)
        {
            float g = grad[k];
            if constexpr (kVariance)
            {
                d[k - begin] = g - previous[k];
            }
            if constexpr (kDecay)
            {
                g += c.weightDecay * params[k];
            }
            if constexpr (kProx)
            {
                g += c.proxMu * (params[k] - start[k]);
            }
            if constexpr (kMomentum)
            {
                velocity[k] = c.momentum * velocity[k] + g;
                g = velocity[k];
            }
            params[k] -= c.lr * g;
        }
        if constexpr (kVariance)
        {
            squares += SumOfSquares(d, n);
        }
    }
    return squares;
}

template<bool kMomentum, bool kDecay, bool kProx, bool kVariance>
double
Step(const StepBuffers& b, const StepCoefficients& c)
{
    return StepKernel<kMomentum, kDecay, kProx, kVariance>(b.params,
                                                           b.grad,
                                                           b.previous,
                                                           b.start,
                                                           b.velocity,
                                                           b.size,
                                                           c);
}

using StepFunction = double (*)(const StepBuffers&, const StepCoefficients&);

template<bool kVariance>
StepFunction
PickStep(bool momentum, bool decay, bool prox)
{
    static constexpr StepFunction kTable[8] = {
        Step<false, false, false, kVariance>,
        Step<false, false, true, kVariance>,
        Step<false, true, false, kVariance>,
        Step<false, true, true, kVariance>,
        Step<true, false, false, kVariance>,
        Step<true, false, true, kVariance>,
        Step<true, true, false, kVariance>,
        Step<true, true, true, kVariance>,
    };
    return kTable[(momentum ? 4 : 0) + (decay ? 2 : 0) + (prox ? 1 : 0)];
}

StepFunction
PickStep(bool momentum, bool decay, bool prox, bool variance)
{
    return variance ? PickStep<true>(momentum, decay, prox)
                    : PickStep<false>(momentum, decay, prox);
}

/**
 * A step through a StepHook: g + decay + prox into `direction`, the hook, then w -= lr * d.
 * Returns ||g_b - g_(b-1)||^2 of the data gradients with kVariance, as StepKernel does.
 */
double
HookedStep(const StepBuffers& b,
           const StepCoefficients& c,
           bool variance,
           std::vector<float>& direction,
           StepHook& hook)
{
    double squares = 0.0;
    float d[kChunk];
    for (size_t begin = 0; begin < b.size; begin += kChunk)
    {
        const size_t n = std::min(kChunk, b.size - begin);
        for (size_t k = begin; k < begin + n; ++k)
        {
            float g = b.grad[k];
            d[k - begin] = g - b.previous[k];
            if (c.weightDecay != 0.0f)
            {
                g += c.weightDecay * b.params[k];
            }
            if (c.proxMu != 0.0f)
            {
                g += c.proxMu * (b.params[k] - b.start[k]);
            }
            direction[k] = g;
        }
        if (variance)
        {
            squares += SumOfSquares(d, n);
        }
    }
    hook.Step(direction);
    for (size_t k = 0; k < b.size; ++k)
    {
        b.params[k] -= c.lr * direction[k];
    }
    return squares;
}

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
    double normSquared = 0.0;
    for (size_t begin = 0; begin < size; begin += kChunk)
    {
        const size_t chunk = std::min(kChunk, size - begin);
        for (size_t k = begin; k < begin + chunk; ++k)
        {
            params[k] -= start[k];
        }
        normSquared += SumOfSquares(params.data() + begin, chunk);
    }
    result.updateNorm = std::sqrt(normSquared);
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
