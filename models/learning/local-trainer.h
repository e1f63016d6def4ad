#ifndef FEDRAN_MODELS_LEARNING_LOCAL_TRAINER_H
#define FEDRAN_MODELS_LEARNING_LOCAL_TRAINER_H

// A client's local training in one FL round: minibatch SGD from the global model, with the
// optional heavy-ball momentum, L2 weight decay and FedProx term of the FL literature, a
// per-round learning-rate schedule, and gradient statistics for adaptive controllers.

#include "compression/rng.h"
#include "models/learning/dataset.h"
#include "models/learning/model.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace fedran
{

/// How the learning rate changes from round to round (see LearningRate()).
enum class LrSchedule
{
    Constant,    ///< lr
    Step,        ///< lr * lrDecay^floor((round - 1) / lrStepRounds)
    Exponential, ///< lr * lrDecay^(round - 1)
    Cosine,      ///< lr * 0.5 * (1 + cos(pi * min(round - 1, totalRounds) / totalRounds))
};

/// "constant", "step", "exponential" or "cosine"; throws std::invalid_argument otherwise.
LrSchedule ParseLrSchedule(std::string_view name);
std::string_view LrScheduleName(LrSchedule schedule);

/// training.pipelining: how the final local step's gradients meet the uplink codec.
struct PipeliningConfig
{
    /// "layerwise": tensors become ready from the output layer backwards during the last
    /// backward pass; full buckets are encoded and sent while earlier layers still compute.
    bool layerwise = false;
    uint64_t bucketBytes = 25ull << 20; ///< PyTorch DDP's default bucket cap, 25 MiB
};

struct TrainingConfig
{
    uint32_t localEpochs = 1; ///< passes over the client's data (ignored if localSteps > 0)
    uint32_t batchSize = 32;
    double lr = 0.05; ///< the base (round-1) learning rate of the schedule
    /// Heavy-ball momentum in [0, 1), PyTorch's convention (no dampening): v = m v + g,
    /// w -= lr v. 0 is plain SGD.
    double momentum = 0.0;
    /// L2 penalty >= 0 added to the gradient as weightDecay * w, like PyTorch's SGD
    /// weight_decay (coupled, before momentum), not AdamW-style decoupled decay.
    double weightDecay = 0.0;
    /// If > 0, exactly this many minibatch steps per round instead of localEpochs passes:
    /// the steps walk reshuffled epochs (last partial batch included) and stop mid-epoch.
    uint32_t localSteps = 0;
    /// FedProx mu >= 0 (Li et al., MLSys 2020): adds mu * (w - w_start) to the gradient, the
    /// gradient of (mu / 2) ||w - w_start||^2, to keep heterogeneous clients near the global
    /// model. 0 is FedAvg.
    double proxMu = 0.0;
    LrSchedule lrSchedule = LrSchedule::Constant;
    double lrDecay = 1.0;      ///< Step and Exponential: the factor (>= 0)
    uint32_t lrStepRounds = 1; ///< Step: rounds between two multiplications by lrDecay (> 0)
    uint32_t totalRounds = 0;  ///< Cosine: rounds of the whole run (> 0)
    /// Fill TrainingResult::gradVariance. Costs one extra read of a gradient-sized buffer per
    /// step: ~1% for softmax on Fashion-MNIST, whose buffers stay in cache, but ~9% for a
    /// 200k-parameter MLP, whose step is bound by memory bandwidth. false leaves it 0.
    bool measureGradVariance = true;
    PipeliningConfig pipelining;
};

struct TrainingResult
{
    std::vector<float> update;      ///< local params minus the starting params
    double meanLoss = 0;            ///< mean of the minibatch data losses (no decay or prox term)
    uint32_t samples = 0;           ///< examples the client holds (its FedAvg weight), not x epochs
    uint32_t steps = 0;             ///< SGD steps taken (see TrainLocal)
    uint64_t examplesProcessed = 0; ///< sum of the minibatch sizes: the work, for compute time
    double updateNorm = 0;          ///< L2 norm of `update` (float-accurate, ~1e-6)
    /**
     * The variance of the minibatch gradient, tr Cov(g_b), for batch-size and step-size
     * controllers, from consecutive minibatch gradients of the data loss (each minibatch,
     * the partial one included, counts once):
     *     gradVariance = sum_{b=2..T} ||g_b - g_(b-1)||^2 / (2 (T - 1)),   0 if T < 2.
     * Independent draws have E ||g_b - g_(b-1)||^2 = 2 tr Cov, so this is unbiased for it.
     * It stands in for the spread around the run's mean, (1/T) sum_b ||g_b - gbar||^2, which
     * has expectation (T - 1) / T tr Cov but also counts the gradient's drift along the
     * trajectory (consecutive steps differ only by O(lr)), and needs a per-parameter running
     * mean: three memory streams per step instead of one read of the previous gradient.
     * Within an epoch (batches of B drawn without replacement from n examples) it measures
     * the with-replacement variance sigma^2 / B x n / (n - 1) (sigma^2: per-example variance).
     * Summed in float over short runs, in double across them: relative error ~1e-6. 0 when
     * TrainingConfig::measureGradVariance is false.
     */
    double gradVariance = 0;
};

/**
 * Something that acts on every step's gradient before the step is taken: a compressor that
 * works inside local training (DGC's momentum correction and accumulation). The trainer knows
 * nothing of what it does; the client wires it to its uplink codec.
 */
class StepHook
{
  public:
    virtual ~StepHook() = default;

    /// Before the first step of a TrainLocal call, which steps with learning rate `lr`.
    virtual void BeginSteps(double lr) = 0;

    /// One step's gradient g (the minibatch gradient plus weightDecay * w and
    /// proxMu * (w - start)), replaced in place by the direction d the step takes: w -= lr * d.
    virtual void Step(std::span<float> gradient) = 0;

    /// After the last step, with the call's result (its update not yet formed).
    virtual void EndSteps(const TrainingResult& result) = 0;
};

/**
 * Throws std::invalid_argument, naming the field, unless: batchSize > 0; momentum in [0, 1);
 * weightDecay, proxMu and lrDecay finite and >= 0; lrStepRounds > 0 for Step; totalRounds > 0
 * for Cosine. TrainLocal calls it; scenario loaders can call it to fail before a run starts.
 */
void ValidateTrainingConfig(const TrainingConfig& config);

/**
 * The learning rate of round `round` (1-based, as FrameHeader::round: the first round is 1)
 * under config.lrSchedule (formulas at LrSchedule). Cosine reaches 0 at round totalRounds + 1
 * and stays there. Throws std::invalid_argument if round is 0 or the schedule's parameters
 * are invalid (see ValidateTrainingConfig).
 */
double LearningRate(const TrainingConfig& config, uint32_t round);

/**
 * Examples one TrainLocal call processes for a client holding `samples` examples, i.e. its
 * TrainingResult::examplesProcessed, known before training so a simulator can schedule the
 * compute time: localEpochs * samples, or with localSteps the sizes of that many batches.
 */
uint64_t LocalExamples(const TrainingConfig& config, uint32_t samples);

/// Examples in the last minibatch step of a round's local training (an epoch's last batch
/// may be partial): what the final backward pass that training.pipelining overlaps costs.
uint64_t LastStepExamples(const TrainingConfig& config, uint32_t samples);

/**
 * Trains from `start` on data[indices] for round `round` at LearningRate(config, round).
 *
 * Each epoch reshuffles the client's indices with `rng` and walks them in batches of batchSize,
 * the last, partial batch included; it runs localEpochs epochs, or with localSteps > 0 exactly
 * that many steps (as many epochs as needed, the last one cut short). A step computes the
 * minibatch gradient g, adds weightDecay * w and proxMu * (w - start), then with momentum
 * m > 0 sets v = m v + g and uses v in place of g, and does w -= lr * g. The momentum buffer
 * starts at 0 on every call: FL clients start each round from a fresh optimiser, since their
 * state from an earlier round belongs to an older global model (and a client may sit rounds
 * out). With no indices there are no steps and the update is 0.
 *
 * With a `hook`, each step hands g (after the decay and prox terms) to hook->Step and takes
 * w -= lr * (what Step left in it); the hook replaces the trainer's momentum, so
 * config.momentum must be 0 then.
 *
 * Deterministic for a given rng state. Allocates its buffers once per call, never per step.
 * Throws std::invalid_argument if start does not match the model's layout, if the config is
 * invalid (ValidateTrainingConfig), if round is 0, or with a hook if momentum is not 0.
 */
TrainingResult TrainLocal(const Model& model,
                          std::span<const float> start,
                          const Dataset& data,
                          std::span<const uint32_t> indices,
                          const TrainingConfig& config,
                          uint32_t round,
                          Rng& rng,
                          StepHook* hook = nullptr);

/**
 * One round outside any schedule (benchmarks, centralised training): TrainLocal at round 1.
 * Throws std::invalid_argument unless config.lrSchedule is Constant, so that a scheduled FL run
 * cannot silently train every round at the initial rate.
 */
TrainingResult TrainLocal(const Model& model,
                          std::span<const float> start,
                          const Dataset& data,
                          std::span<const uint32_t> indices,
                          const TrainingConfig& config,
                          Rng& rng);

} // namespace fedran

#endif
