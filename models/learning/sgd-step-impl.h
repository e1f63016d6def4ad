// The SGD step's loops (sgd-step.h), compiled once per instruction set: sgd-step.cc (the
// build's baseline), sgd-step-avx2.cc and sgd-step-avx512.cc, each with -ffp-contract=off and
// FEDRAN_STEP_FUNCTION naming its table of steps. Every operation is element by element or a
// sum in a fixed order of its own, so every build gives the same bits; the wider ones only
// take fewer instructions. Everything here has internal linkage: each build has its own copy.

#include "models/learning/sgd-step.h"

#include <algorithm>
#include <cstring>

namespace fedran::sgd
{

namespace
{

/// A step works through the parameters in chunks of this many, small enough for their
/// gradient differences to stay in L1 between the update loop and the sum of their squares.
constexpr size_t kStepChunk = 256;

/// The step loop runs this many chunks before summing their squares, so that the four sums,
/// each a serial chain of additions, overlap instead of waiting on each other.
constexpr size_t kChunksPerPass = 4;

/// Four floats, added and multiplied lane by lane (GCC's vector extension: SSE on x86-64).
using Float4 = float __attribute__((vector_size(16)));

Float4
LoadSquares(const float* p)
{
    Float4 v;
    std::memcpy(&v, p, sizeof(v));
    return v * v;
}

/// (p0 + p2) + (p1 + p3): how the four lanes of a chunk's partial sums are added at the end.
float
AddLanes(Float4 p)
{
    return (p[0] + p[2]) + (p[1] + p[3]);
}

/// Eight floats: a chunk's two accumulators side by side, lanes 0-3 the even groups' and 4-7
/// the odd groups' (one register on AVX2 and wider, two on SSE).
using Float8 = float __attribute__((vector_size(32)));

/// ChunkSquares over kChunksPerPass full chunks of `d`, interleaved, each chunk's float sum
/// added to `squares` in chunk order.
void
AddFullChunkSquares(const float* d, double& squares)
{
    Float8 sums[kChunksPerPass];
    for (size_t c = 0; c < kChunksPerPass; ++c)
    {
        std::memcpy(&sums[c], d + c * kStepChunk, sizeof(Float8));
        sums[c] *= sums[c];
    }
    for (size_t i = 8; i < kStepChunk; i += 8)
    {
        for (size_t c = 0; c < kChunksPerPass; ++c)
        {
            Float8 v;
            std::memcpy(&v, d + c * kStepChunk + i, sizeof(v));
            sums[c] += v * v;
        }
    }
    for (size_t c = 0; c < kChunksPerPass; ++c)
    {
        const Float4 even = {sums[c][0], sums[c][1], sums[c][2], sums[c][3]};
        const Float4 odd = {sums[c][4], sums[c][5], sums[c][6], sums[c][7]};
        squares += AddLanes(even + odd);
    }
}

/// ChunkSquares (sgd-step.h).
float
SquaresOfChunk(const float* d, size_t n)
{
    if (n == 0)
    {
        return 0.0f;
    }
    const size_t packed = n / 4 * 4;
    if (packed == 0)
    {
        float sum = d[0] * d[0];
        for (size_t k = 1; k < n; ++k)
        {
            sum += d[k] * d[k];
        }
        return sum;
    }
    const size_t pairs = n / 8 * 8;
    Float4 even = LoadSquares(d);
    if (packed > 4)
    {
        Float4 odd = LoadSquares(d + 4);
        for (size_t i = 8; i < pairs; i += 8)
        {
            even += LoadSquares(d + i);
            odd += LoadSquares(d + i + 4);
        }
        even += odd;
        if (packed > pairs)
        {
            even += LoadSquares(d + pairs);
        }
    }
    float sum = AddLanes(even);
    for (size_t k = packed; k < n; ++k)
    {
        sum += d[k] * d[k];
    }
    return sum;
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
    constexpr size_t kPass = kChunksPerPass * kStepChunk;
    float d[kPass];
    double squares = 0.0;
    for (size_t begin = 0; begin < size; begin += kPass)
    {
        const size_t n = std::min(kPass, size - begin);
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
            if (n == kPass)
            {
                AddFullChunkSquares(d, squares);
            }
            else
            {
                for (size_t j = 0; j < n; j += kStepChunk)
                {
                    squares += SquaresOfChunk(d + j, std::min(kStepChunk, n - j));
                }
            }
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
PickStepOf(bool momentum, bool decay, bool prox)
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
FEDRAN_STEP_FUNCTION(bool momentum, bool decay, bool prox, bool variance)
{
    return variance ? PickStepOf<true>(momentum, decay, prox)
                    : PickStepOf<false>(momentum, decay, prox);
}

} // namespace fedran::sgd
