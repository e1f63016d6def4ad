#include "models/learning/sgd-step.h"

#include "models/learning/eigen-config.h"

#include <algorithm>

namespace fedran::sgd
{

namespace
{

/// A step works through the parameters in chunks of this many, small enough for their
/// gradient differences to stay in L1 between the update loop and the sum of their squares.
constexpr size_t kStepChunk = 256;

/**
 * sum_k d[k]^2 over n <= kStepChunk values. In float, so that it vectorises, and by Eigen, whose
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
    float d[kStepChunk];
    double squares = 0.0;
    for (size_t begin = 0; begin < size; begin += kStepChunk)
    {
        const size_t n = std::min(kStepChunk, size - begin);
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

} // namespace

StepFunction
PickStep(bool momentum, bool decay, bool prox, bool variance)
{
    return variance ? PickStep<true>(momentum, decay, prox)
                    : PickStep<false>(momentum, decay, prox);
}

double
HookedStep(const StepBuffers& b,
           const StepCoefficients& c,
           bool variance,
           std::vector<float>& direction,
           StepHook& hook)
{
    double squares = 0.0;
    float d[kStepChunk];
    for (size_t begin = 0; begin < b.size; begin += kStepChunk)
    {
        const size_t n = std::min(kStepChunk, b.size - begin);
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

double
FormUpdate(float* params, const float* start, size_t size)
{
    double normSquared = 0.0;
    for (size_t begin = 0; begin < size; begin += kStepChunk)
    {
        const size_t chunk = std::min(kStepChunk, size - begin);
        for (size_t k = begin; k < begin + chunk; ++k)
        {
            params[k] -= start[k];
        }
        normSquared += SumOfSquares(params + begin, chunk);
    }
    return normSquared;
}

} // namespace fedran::sgd
