// TrainLocal's StepHook: each step's gradient (after weight decay and the prox term) goes
// through it and the step follows what it returns; it replaces the trainer's momentum.

#include "models/learning/dataset.h"
#include "models/learning/local-trainer.h"
#include "models/learning/softmax-model.h"
#include "trainer-test-util.h"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <vector>

namespace fedran::test
{
namespace
{

/// Records what it sees; with `momentum` > 0 it turns g into a heavy-ball velocity, the way
/// the trainer's own momentum would.
class RecordingHook : public StepHook
{
  public:
    explicit RecordingHook(float momentum = 0.0f)
        : m_momentum(momentum)
    {
    }

    void BeginSteps(double lr) override
    {
        lrs.push_back(lr);
    }

    void Step(std::span<float> gradient) override
    {
        gradients.emplace_back(gradient.begin(), gradient.end());
        velocity.resize(gradient.size(), 0.0f);
        for (size_t i = 0; i < gradient.size(); ++i)
        {
            velocity[i] = m_momentum * velocity[i] + gradient[i];
            gradient[i] = velocity[i];
        }
    }

    void EndSteps(const TrainingResult& result) override
    {
        ends.push_back(result.examplesProcessed);
    }

    std::vector<double> lrs;
    std::vector<std::vector<float>> gradients;
    std::vector<float> velocity;
    std::vector<uint64_t> ends;

  private:
    float m_momentum;
};

TEST(StepHook, SeesTheFullGradientAndTheStepFollowsItsDirection)
{
    // Gradient w - a, a = 0, w0 = 1, lr 0.1, weight decay 0.5, proxMu 1 (the numbers of
    // DecayProxAndMomentumCombineInPyTorchOrder): the hook sees g = 1.5, then 1.125 after
    // the momentum step w = 0.85, and its velocity makes the trainer's momentum's update.
    QuadraticModel model({0.0f});
    const Dataset data = Placeholder(2);
    const std::vector<float> start = {1.0f};
    TrainingConfig config;
    config.batchSize = 1;
    config.lr = 0.1;
    config.weightDecay = 0.5;
    config.proxMu = 1.0;
    RecordingHook hook(0.9f);
    Rng rng(1);
    const TrainingResult result =
        TrainLocal(model, start, data, AllIndices(data), config, 1, rng, &hook);
    ASSERT_EQ(hook.gradients.size(), 2u);
    EXPECT_FLOAT_EQ(hook.gradients[0][0], 1.5f);
    EXPECT_FLOAT_EQ(hook.gradients[1][0], 1.125f);
    EXPECT_NEAR(result.update[0], -0.3975, 1e-6);
    EXPECT_EQ(hook.lrs, std::vector<double>{0.1});
    EXPECT_EQ(hook.ends, std::vector<uint64_t>{2});

    // The same with the trainer's own momentum instead: the same update.
    config.momentum = 0.9;
    Rng again(1);
    const TrainingResult own = TrainLocal(model, start, data, AllIndices(data), config, 1, again);
    EXPECT_NEAR(own.update[0], result.update[0], 1e-7);
    // Both at once would compound: refused.
    Rng third(1);
    EXPECT_THROW(TrainLocal(model, start, data, AllIndices(data), config, 1, third, &hook),
                 std::invalid_argument);
}

TEST(StepHook, AnIdentityHookTrainsBitForBitAsWithout)
{
    const Dataset data = Blobs(60, 5);
    SoftmaxModel model(data.features, data.classes);
    const std::vector<float> start(model.Layout().TotalSize(), 0.0f);
    TrainingConfig config;
    config.batchSize = 8;
    config.localEpochs = 2;
    config.weightDecay = 0.01;
    Rng a(3);
    Rng b(3);
    RecordingHook identity;
    const TrainingResult plain = TrainLocal(model, start, data, AllIndices(data), config, 1, a);
    const TrainingResult hooked =
        TrainLocal(model, start, data, AllIndices(data), config, 1, b, &identity);
    ASSERT_EQ(plain.update.size(), hooked.update.size());
    EXPECT_EQ(std::memcmp(plain.update.data(), hooked.update.data(), plain.update.size() * 4), 0);
    EXPECT_EQ(plain.gradVariance, hooked.gradVariance);
    EXPECT_EQ(identity.gradients.size(), plain.steps);
}

} // namespace
} // namespace fedran::test
