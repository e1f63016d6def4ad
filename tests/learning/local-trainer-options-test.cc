// TrainLocal's optional terms: momentum, weight decay and FedProx (alone and combined, in
// PyTorch's order), local_steps instead of epochs, and the checks of their values.

#include "models/learning/dataset.h"
#include "models/learning/local-trainer.h"
#include "models/learning/softmax-model.h"
#include "trainer-test-util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace fedran::test
{
namespace
{

TEST(LocalTrainer, MomentumMatchesTwoStepsByHand)
{
    // Gradient w - a with w0 = (1, -2), a = (0, 1), lr 0.1, momentum 0.9:
    //   step 1: g = (1, -3)      v = (1, -3)                    w = (0.9, -1.7)
    //   step 2: g = (0.9, -2.7)  v = 0.9 (1, -3) + g = (1.8, -5.4)  w = (0.72, -1.16)
    // so the update is (-0.28, 0.84); plain SGD would give (-0.19, 0.57).
    QuadraticModel model({0.0f, 1.0f});
    const Dataset data = Placeholder(2);
    const std::vector<float> start = {1.0f, -2.0f};
    TrainingConfig config;
    config.batchSize = 1; // 2 examples: two steps
    config.lr = 0.1;
    config.momentum = 0.9;
    Rng rng(1);
    const TrainingResult result = TrainLocal(model, start, data, AllIndices(data), config, 1, rng);
    ASSERT_EQ(result.steps, 2u);
    EXPECT_NEAR(result.update[0], -0.28, 1e-6);
    EXPECT_NEAR(result.update[1], 0.84, 1e-6);
    EXPECT_NEAR(result.updateNorm, std::hypot(0.28, 0.84), 1e-6);
}

TEST(LocalTrainer, DecayProxAndMomentumCombineInPyTorchOrder)
{
    // Gradient w (a = 0), w0 = 1, lr 0.1, momentum 0.9, weight decay 0.5, proxMu 1:
    //   step 1: g = 1 + 0.5 * 1 + 1 * (1 - 1) = 1.5                  v = 1.5    w = 0.85
    //   step 2: g = 0.85 + 0.425 + (0.85 - 1) = 1.125   v = 1.35 + 1.125 = 2.475  w = 0.6025
    QuadraticModel model({0.0f});
    const Dataset data = Placeholder(2);
    const std::vector<float> start = {1.0f};
    TrainingConfig config;
    config.batchSize = 1;
    config.lr = 0.1;
    config.momentum = 0.9;
    config.weightDecay = 0.5;
    config.proxMu = 1.0;
    Rng rng(1);
    const TrainingResult result = TrainLocal(model, start, data, AllIndices(data), config, 1, rng);
    ASSERT_EQ(result.steps, 2u);
    EXPECT_NEAR(result.update[0], -0.3975, 1e-6);
}

TEST(LocalTrainer, WeightDecayAloneShrinksGeometrically)
{
    // With a zero data gradient each step is w -= lr * wd * w = w * (1 - lr * wd). With
    // lr = wd = 0.5 the factor is 0.75 and every intermediate value is exact in float.
    ConstantGradientModel model(std::vector<float>(4, 0.0f));
    const Dataset data = Placeholder(8);
    const std::vector<float> start = {1.0f, -2.0f, 0.5f, 3.0f};
    TrainingConfig config;
    config.batchSize = 4;
    config.lr = 0.5;
    config.weightDecay = 0.5;
    config.localSteps = 10;
    Rng rng(1);
    const TrainingResult result = TrainLocal(model, start, data, AllIndices(data), config, 1, rng);
    ASSERT_EQ(result.steps, 10u);
    for (size_t k = 0; k < start.size(); ++k)
    {
        const double expected = start[k] * std::pow(0.75, 10);
        EXPECT_EQ(start[k] + result.update[k], static_cast<float>(expected)) << "k = " << k;
    }
}

TEST(LocalTrainer, LocalStepsRunsExactlyThatManySteps)
{
    const Dataset data = Blobs(100, 10);
    SoftmaxModel softmax(data.features, data.classes);
    const std::vector<float> start(softmax.Layout().TotalSize(), 0.0f);

    // Full batches: 64 examples, batch 16, 10 steps = 2.5 epochs.
    {
        std::vector<uint32_t> indices(64);
        std::iota(indices.begin(), indices.end(), 0u);
        TrainingConfig config;
        config.batchSize = 16;
        config.localSteps = 10;
        config.localEpochs = 7; // ignored in step mode
        Rng rng(5);
        const TrainingResult result = TrainLocal(softmax, start, data, indices, config, 1, rng);
        EXPECT_EQ(result.steps, 10u);
        EXPECT_EQ(result.examplesProcessed, 160u);
        EXPECT_EQ(LocalExamples(config, 64), 160u);
        EXPECT_EQ(result.samples, 64u);
    }

    // With a partial last batch: 70 examples, batch 32 walk 32 + 32 + 6, then a new epoch.
    std::vector<uint32_t> indices(70);
    std::iota(indices.begin(), indices.end(), 30u);
    RecordingModel model(softmax);
    TrainingConfig config;
    config.batchSize = 32;
    config.localSteps = 4;
    Rng rng(6);
    const TrainingResult result = TrainLocal(model, start, data, indices, config, 1, rng);
    EXPECT_EQ(result.steps, 4u);
    EXPECT_EQ(result.examplesProcessed, 102u);
    EXPECT_EQ(LocalExamples(config, 70), 102u);
    ASSERT_EQ(model.batches.size(), 4u);
    EXPECT_EQ(model.batches[2].size(), 6u);
    EXPECT_EQ(model.batches[3].size(), 32u);
    std::vector<uint32_t> firstEpoch;
    for (size_t b = 0; b < 3; ++b)
    {
        firstEpoch.insert(firstEpoch.end(), model.batches[b].begin(), model.batches[b].end());
    }
    std::sort(firstEpoch.begin(), firstEpoch.end());
    EXPECT_EQ(firstEpoch, indices);

    // A whole number of epochs' worth of steps is the epoch mode, bit for bit.
    TrainingConfig steps = config;
    steps.localSteps = 9;
    TrainingConfig epochs = config;
    epochs.localSteps = 0;
    epochs.localEpochs = 3;
    Rng a(8);
    Rng b(8);
    const TrainingResult bySteps = TrainLocal(softmax, start, data, indices, steps, 1, a);
    const TrainingResult byEpochs = TrainLocal(softmax, start, data, indices, epochs, 1, b);
    EXPECT_EQ(bySteps.steps, byEpochs.steps);
    EXPECT_EQ(bySteps.examplesProcessed, byEpochs.examplesProcessed);
    EXPECT_TRUE(BitIdentical(bySteps.update, byEpochs.update));
}

TEST(LocalTrainer, FedProxKeepsTheUpdateCloserToTheStart)
{
    const Dataset data = Blobs(200, 11);
    SoftmaxModel model(data.features, data.classes);
    const std::vector<float> start(model.Layout().TotalSize(), 0.0f);
    TrainingConfig config;
    config.localEpochs = 5;
    config.batchSize = 10;
    config.lr = 0.5;
    const auto indices = AllIndices(data);
    Rng a(3);
    const TrainingResult plain = TrainLocal(model, start, data, indices, config, 1, a);
    config.proxMu = 1.0; // lr * mu = 0.5: the proximal pull alone is a stable contraction
    Rng b(3);
    const TrainingResult prox = TrainLocal(model, start, data, indices, config, 1, b);
    // updateNorm sums squares in float over short runs: float rounding.
    EXPECT_NEAR(plain.updateNorm, std::sqrt(SquaredNorm(plain.update)), 1e-6 * plain.updateNorm);
    EXPECT_NEAR(prox.updateNorm, std::sqrt(SquaredNorm(prox.update)), 1e-6 * prox.updateNorm);
    EXPECT_GT(plain.updateNorm, 0.0);
    EXPECT_LT(prox.updateNorm, 0.5 * plain.updateNorm);
}

TEST(LocalTrainer, EveryOptionIsDeterministic)
{
    const Dataset data = Blobs(120, 16);
    SoftmaxModel model(data.features, data.classes);
    const std::vector<float> start(model.Layout().TotalSize(), 0.02f);
    TrainingConfig config;
    config.batchSize = 7;
    config.lr = 0.2;
    config.momentum = 0.9;
    config.weightDecay = 1e-3;
    config.proxMu = 0.1;
    config.localSteps = 40;
    config.lrSchedule = LrSchedule::Cosine;
    config.totalRounds = 5;
    const auto indices = AllIndices(data);
    Rng a(99);
    Rng b(99);
    Rng c(100);
    const TrainingResult first = TrainLocal(model, start, data, indices, config, 3, a);
    const TrainingResult second = TrainLocal(model, start, data, indices, config, 3, b);
    const TrainingResult other = TrainLocal(model, start, data, indices, config, 3, c);
    EXPECT_TRUE(BitIdentical(first.update, second.update));
    EXPECT_EQ(first.meanLoss, second.meanLoss);
    EXPECT_EQ(first.updateNorm, second.updateNorm);
    EXPECT_EQ(first.gradVariance, second.gradVariance);
    EXPECT_EQ(first.examplesProcessed, second.examplesProcessed);
    EXPECT_EQ(first.steps, 40u);
    EXPECT_FALSE(BitIdentical(first.update, other.update));
}

TEST(LocalTrainer, RejectsBadOptions)
{
    const Dataset data = Blobs(10, 7);
    SoftmaxModel model(data.features, data.classes);
    const std::vector<float> start(model.Layout().TotalSize());
    const auto indices = AllIndices(data);
    Rng rng(1);
    const auto rejects = [&](auto change) {
        TrainingConfig config;
        change(config);
        EXPECT_THROW(ValidateTrainingConfig(config), std::invalid_argument);
        EXPECT_THROW(TrainLocal(model, start, data, indices, config, 1, rng),
                     std::invalid_argument);
    };
    rejects([](TrainingConfig& c) { c.momentum = 1.0; });
    rejects([](TrainingConfig& c) { c.momentum = -0.1; });
    rejects([](TrainingConfig& c) { c.momentum = std::numeric_limits<double>::quiet_NaN(); });
    rejects([](TrainingConfig& c) { c.weightDecay = -1e-4; });
    rejects([](TrainingConfig& c) { c.proxMu = std::numeric_limits<double>::quiet_NaN(); });
    rejects([](TrainingConfig& c) { c.proxMu = std::numeric_limits<double>::infinity(); });
    rejects([](TrainingConfig& c) { c.lrDecay = -0.5; });
    rejects([](TrainingConfig& c) {
        c.lrSchedule = LrSchedule::Step;
        c.lrStepRounds = 0;
    });
    rejects([](TrainingConfig& c) { c.lrSchedule = LrSchedule::Cosine; }); // totalRounds 0
    EXPECT_NO_THROW(ValidateTrainingConfig(TrainingConfig{}));
    EXPECT_THROW(TrainLocal(model, start, data, indices, TrainingConfig{}, 0, rng),
                 std::invalid_argument);
}

} // namespace
} // namespace fedran::test
