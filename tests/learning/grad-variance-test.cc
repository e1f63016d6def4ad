// TrainingResult::gradVariance: zero for identical gradients, the closed form on recorded
// minibatch gradients, and agreement with the spread around the mean when nothing drifts.

#include "model-test-util.h"
#include "models/learning/dataset.h"
#include "models/learning/local-trainer.h"
#include "models/learning/softmax-model.h"
#include "trainer-test-util.h"

#include <gtest/gtest.h>

#include <vector>

namespace fedran::test
{
namespace
{

TEST(LocalTrainer, GradVarianceIsZeroForIdenticalGradients)
{
    // Exactly 0 when the model returns the same gradient at every step.
    ConstantGradientModel constant({0.5f, -1.25f, 3.0f});
    const Dataset placeholder = Placeholder(20);
    TrainingConfig config;
    config.batchSize = 3;
    config.localEpochs = 2;
    config.lr = 0.1;
    Rng rng(1);
    const std::vector<float> zeros(3, 0.0f);
    const TrainingResult same =
        TrainLocal(constant, zeros, placeholder, AllIndices(placeholder), config, 1, rng);
    EXPECT_EQ(same.steps, 14u);
    EXPECT_EQ(same.gradVariance, 0.0);

    // A whole-dataset batch at lr 0 gives the full gradient at every step; only the summation
    // order (the shuffle) differs, so the variance is at rounding level.
    const Dataset data = Blobs(96, 13);
    SoftmaxModel model(data.features, data.classes);
    std::vector<float> start(model.Layout().TotalSize());
    Rng init(3);
    for (auto& p : start)
    {
        p = static_cast<float>(0.3 * init.Normal());
    }
    const auto indices = AllIndices(data);
    std::vector<float> fullGradient(start.size());
    model.LossAndGradient(start, data, indices, fullGradient);
    const double fullSquared = SquaredNorm(fullGradient);
    ASSERT_GT(fullSquared, 0.0);
    config.batchSize = 96;
    config.localEpochs = 4;
    config.lr = 0.0;
    const TrainingResult full = TrainLocal(model, start, data, indices, config, 1, rng);
    EXPECT_EQ(full.steps, 4u);
    EXPECT_LE(full.gradVariance, 1e-10 * fullSquared);

    // Minibatches of 8 do differ.
    config.batchSize = 8;
    const TrainingResult mini = TrainLocal(model, start, data, indices, config, 1, rng);
    EXPECT_GT(mini.gradVariance, 1e-3 * fullSquared);

    // One step has no spread to measure.
    config.localSteps = 1;
    EXPECT_EQ(TrainLocal(model, start, data, indices, config, 1, rng).gradVariance, 0.0);
}

/// (1/T) sum_b ||g_b - gbar||^2 around the mean of the recorded gradients, in double.
double
SpreadAroundMean(const std::vector<std::vector<float>>& gradients)
{
    const size_t size = gradients.front().size();
    const auto t = static_cast<double>(gradients.size());
    std::vector<double> mean(size, 0.0);
    for (const auto& g : gradients)
    {
        for (size_t k = 0; k < size; ++k)
        {
            mean[k] += g[k] / t;
        }
    }
    double spread = 0.0;
    for (const auto& g : gradients)
    {
        for (size_t k = 0; k < size; ++k)
        {
            const double d = g[k] - mean[k];
            spread += d * d / t;
        }
    }
    return spread;
}

TEST(LocalTrainer, GradVarianceMatchesBruteForce)
{
    // 60 x 5 + 5 = 305 parameters: the trainer's blocked loops and their remainder all run.
    const Dataset data = RandomDataset(37, 60, 5, 14);
    SoftmaxModel softmax(data.features, data.classes);
    RecordingModel model(softmax);
    const std::vector<float> start(softmax.Layout().TotalSize(), 0.0f);
    TrainingConfig config;
    config.batchSize = 5; // 7 full batches and one of 2 per epoch
    config.localEpochs = 3;
    config.lr = 0.3;
    config.momentum = 0.5;
    Rng rng(15);
    const TrainingResult result = TrainLocal(model, start, data, AllIndices(data), config, 1, rng);
    ASSERT_EQ(model.gradients.size(), result.steps);
    ASSERT_EQ(result.steps, 24u);

    // sum_{b >= 2} ||g_b - g_(b-1)||^2 / (2 (T - 1)), in double.
    double sum = 0.0;
    uint64_t examples = model.batches[0].size();
    for (size_t b = 1; b < model.gradients.size(); ++b)
    {
        examples += model.batches[b].size();
        for (size_t k = 0; k < start.size(); ++k)
        {
            const double d = double{model.gradients[b][k]} - model.gradients[b - 1][k];
            sum += d * d;
        }
    }
    const double variance = sum / (2.0 * (result.steps - 1));
    ASSERT_GT(variance, 0.0);
    // The trainer sums squares in float over short runs (see local-trainer.cc): float rounding.
    EXPECT_NEAR(result.gradVariance, variance, 1e-5 * variance);
    EXPECT_EQ(result.examplesProcessed, examples);
    EXPECT_EQ(result.examplesProcessed, 111u);
}

TEST(LocalTrainer, GradVarianceAgreesWithTheSpreadAroundTheMeanAtZeroLr)
{
    // At lr 0 every full epoch's batches partition the data, so gbar is the full gradient and
    // E ||g_b - gbar||^2 = sigma^2 / B (n - B) / (n - 1) (sampling without replacement), while
    // consecutive batches of an epoch are negatively correlated, which puts the consecutive
    // estimator at sigma^2 / B n / (n - 1): a ratio of n / (n - B) = 1.053 here.
    const Dataset data = RandomDataset(200, 20, 5, 17);
    SoftmaxModel softmax(data.features, data.classes);
    RecordingModel model(softmax);
    std::vector<float> start(softmax.Layout().TotalSize());
    Rng init(5);
    for (auto& p : start)
    {
        p = static_cast<float>(0.5 * init.Normal());
    }
    TrainingConfig config;
    config.batchSize = 10;
    config.localEpochs = 20; // 400 steps
    config.lr = 0.0;
    Rng rng(16);
    const TrainingResult result = TrainLocal(model, start, data, AllIndices(data), config, 1, rng);
    const double spread = SpreadAroundMean(model.gradients);
    ASSERT_GT(spread, 0.0);
    EXPECT_NEAR(result.gradVariance / spread, 200.0 / 190.0, 0.1);
}

} // namespace
} // namespace fedran::test
