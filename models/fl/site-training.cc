#include "models/fl/site-training.h"

#include "models/fl/byzantine-attack.h"

#include <cmath>
#include <optional>
#include <vector>

namespace fedran
{

namespace
{

/// Hands the trainer's steps to the uplink codec's per-step state (dgc's mode "step"): the
/// trainer knows only StepHook, the codec only LocalStepState.
class CodecStepHook final : public StepHook
{
  public:
    CodecStepHook(LocalStepState& state, const TensorLayout& layout)
        : m_state(state)
        , m_layout(layout)
    {
    }

    void BeginSteps(double lr) override
    {
        m_state.BeginLocalTraining(m_layout, lr);
    }

    void Step(std::span<float> gradient) override
    {
        m_state.LocalStep(gradient);
    }

    void EndSteps(const TrainingResult& result) override
    {
        m_state.EndLocalTraining(result.examplesProcessed, result.samples);
    }

  private:
    LocalStepState& m_state;
    const TensorLayout& m_layout;
};

/// Local training: on `client`'s examples, or with `flipLabels` on a copy of them with
/// flipped labels.
TrainingResult
Train(const FederatedTask& task,
      uint32_t client,
      std::span<const float> model,
      uint32_t round,
      bool flipLabels,
      LocalStepState* stepState,
      Rng& rng)
{
    const ClientExamples examples(task, client);
    const std::vector<uint32_t>& rows = examples.Rows();
    const Dataset& train = examples.Data();
    std::optional<CodecStepHook> hook;
    if (stepState)
    {
        hook.emplace(*stepState, task.model->Layout());
    }
    StepHook* stepHook = hook ? &*hook : nullptr;
    if (!flipLabels)
    {
        return TrainLocal(*task.model, model, train, rows, task.training, round, rng, stepHook);
    }
    // Data poisoning: the same examples, labels y -> C - 1 - y, in a copy that lives only
    // while the client trains (rows 0..k-1 of it stand for the client's k examples, in order,
    // so the minibatch draws are those of honest training).
    Dataset flipped;
    flipped.features = train.features;
    flipped.classes = train.classes;
    flipped.x.reserve(rows.size() * size_t(train.features));
    std::vector<uint32_t> local(rows.size());
    for (size_t i = 0; i < rows.size(); ++i)
    {
        const float* row = train.Row(rows[i]);
        flipped.x.insert(flipped.x.end(), row, row + train.features);
        flipped.y.push_back(static_cast<uint8_t>(train.classes - 1 - train.y[rows[i]]));
        local[i] = static_cast<uint32_t>(i);
    }
    return TrainLocal(*task.model, model, flipped, local, task.training, round, rng, stepHook);
}

} // namespace

SiteAttack::SiteAttack(const FederatedTask& task, uint32_t client)
    : rng(task.seed, kClientAttackStreamBase + client)
{
    if (client < task.attacks.size())
    {
        config = task.attacks[client];
    }
}

void
SiteAttack::ModelArrived(const FederatedTask& task, uint32_t round)
{
    if (config.Active(round) && config.Colluding() && task.collusion)
    {
        collusion = task.collusion->Round(round);
    }
}

TrainingResult
TrainSite(const FederatedTask& task,
          uint32_t client,
          std::span<const float> model,
          uint32_t round,
          LocalStepState* stepState,
          Rng& trainRng,
          SiteAttack& attack)
{
    const bool active = attack.config.Active(round);
    const bool flipLabels = active && attack.config.type == "label_flip";
    TrainingResult result = Train(task, client, model, round, flipLabels, stepState, trainRng);
    if (active && !flipLabels)
    {
        // Before the codec: the frame is valid and of an honest client's size.
        const HonestStatistics* honest =
            attack.collusion ? &attack.collusion->Statistics(task) : nullptr;
        CorruptUpdate(attack.config, result.update, honest, attack.rng);
        double sum = 0.0;
        for (float v : result.update)
        {
            sum += double(v) * double(v);
        }
        result.updateNorm = std::sqrt(sum); // of what it sends
    }
    attack.collusion.reset();
    return result;
}

} // namespace fedran
