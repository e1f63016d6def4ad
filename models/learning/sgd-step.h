#ifndef FEDRAN_MODELS_LEARNING_SGD_STEP_H
#define FEDRAN_MODELS_LEARNING_SGD_STEP_H

// One step of local SGD over every parameter (TrainLocal's update rule, local-trainer.h):
// the minibatch gradient plus the optional weight decay and FedProx terms, heavy-ball momentum
// or a StepHook, and ||g_b - g_(b-1)||^2 for TrainingResult::gradVariance.

#include "models/learning/gemm.h"
#include "models/learning/local-trainer.h"

#include <cstddef>
#include <vector>

namespace fedran::sgd
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

using StepFunction = double (*)(const StepBuffers&, const StepCoefficients&);

/// The step loop for this combination of terms (each compiles to its own loop); it returns
/// ||g_b - g_(b-1)||^2 with `variance`, else 0.
StepFunction PickStep(bool momentum, bool decay, bool prox, bool variance);

/// PickStep from the build for `isa` (the loops compiled for that instruction set; every build
/// gives the same bits). Throws std::invalid_argument if this CPU or build lacks it. PickStep
/// without it uses ActiveGemmIsa(), as the matrix products do.
StepFunction PickStep(GemmIsa isa, bool momentum, bool decay, bool prox, bool variance);

/// Each build's table of steps (sgd-step-impl.h), as PickStep(isa, ...) chooses among them.
using StepForFunction = StepFunction(bool momentum, bool decay, bool prox, bool variance);
StepForFunction StepForGeneric;
#ifdef FEDRAN_GEMM_X86_KERNELS
StepForFunction StepForAvx2;
StepForFunction StepForAvx512;
#endif

/**
 * A step through a StepHook: g + decay + prox into `direction`, the hook, then w -= lr * d.
 * Returns ||g_b - g_(b-1)||^2 of the data gradients with `variance`, as the other steps do.
 */
double HookedStep(const StepBuffers& b,
                  const StepCoefficients& c,
                  bool variance,
                  std::vector<float>& direction,
                  StepHook& hook);

/**
 * sum_k d[k]^2 over one chunk of n <= 256 floats, in float, in a fixed order of our own: the
 * statistics the steps return sum their chunks' results in double. The order is that of
 * Eigen 3.4's vectorised sum on SSE, which these statistics used before and which every trace
 * was recorded with: two accumulators of four lanes take alternate groups of four squares (a
 * last odd group goes to the first); the accumulators are added, then their lanes as
 * (l0 + l2) + (l1 + l3); then the last n mod 4 squares one by one. Fewer than four are
 * summed one by one. The order does not depend on d's alignment. A fixed order, not the
 * compiler's or
 * a library's: a float sum's last bits depend on it, and grad_variance and update_norm reach
 * the traces. Few terms per float sum keep its error at a few roundings.
 */
float ChunkSquares(const float* d, size_t n);

/// Turns `params` into the update, params - start, in place; returns its squared L2 norm
/// (summed as the steps sum ||g_b - g_(b-1)||^2: in float per chunk, in double across them).
double FormUpdate(float* params, const float* start, size_t size);

} // namespace fedran::sgd

#endif
