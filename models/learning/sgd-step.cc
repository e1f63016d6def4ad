#include "models/learning/sgd-step.h"

#include "models/learning/isa-kernels.h"

#define FEDRAN_STEP_FUNCTION StepForGeneric
#include "models/learning/sgd-step-impl.h"

namespace fedran::sgd
{

float
ChunkSquares(const float* d, size_t n)
{
    return SquaresOfChunk(d, n);
}

StepFunction
PickStep(GemmIsa isa, bool momentum, bool decay, bool prox, bool variance)
{
    return gemm::AvailableKernel(isa, "SGD step", FEDRAN_ISA_KERNEL_BUILDS(StepFor))(momentum,
                                                                                     decay,
                                                                                     prox,
                                                                                     variance);
}

StepFunction
PickStep(bool momentum, bool decay, bool prox, bool variance)
{
    return PickStep(ActiveGemmIsa(), momentum, decay, prox, variance);
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
            squares += ChunkSquares(d, n);
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
        normSquared += ChunkSquares(params + begin, chunk);
    }
    return normSquared;
}

} // namespace fedran::sgd
