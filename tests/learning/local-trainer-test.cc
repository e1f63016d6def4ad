// TrainLocal basics: learning on separable data, step counting, loss bookkeeping, argument
// checks, determinism, and bit-for-bit agreement with a textbook SGD loop.

#include "model-test-util.h"
#include "models/learning/dataset.h"
#include "models/learning/local-trainer.h"
#include "models/learning/shuffle.h"
#include "models/learning/softmax-model.h"
#include "trainer-test-util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace fedran::test
{
namespace
{

TEST(LocalTrainer, LearnsSeparableData)
{
    const Dataset train = Blobs(400, 1);
    const Dataset test = Blobs(400, 2);
    SoftmaxModel model(train.features, train.classes);
    std::vector<float> start(model.Layout().TotalSize());
    Rng init(0);
    model.InitParams(start, init);
    const Evaluation before = model.Evaluate(start, test);
    EXPECT_NEAR(before.loss, std::log(4.0), 1e-6);

    TrainingConfig config;
    config.localEpochs = 5;
    config.batchSize = 16;
    config.lr = 0.5;
    Rng rng(3);
    const auto indices = AllIndices(train);
    const TrainingResult result = TrainLocal(model, start, train, indices, config, rng);
    const Evaluation after = model.Evaluate(Apply(start, result.update), test);
    EXPECT_LT(after.loss, 0.1);
    EXPECT_GT(after.accuracy, 0.98);
    EXPECT_LT(result.meanLoss, before.loss);
    EXPECT_GT(result.meanLoss, after.loss); // the mean includes the early, worse batches
}

TEST(LocalTrainer, CountsStepsWithPartialLastBatch)
{
    const Dataset data = Blobs(100, 4);
    SoftmaxModel model(data.features, data.classes);
    std::vector<float> start(model.Layout().TotalSize(), 0.0f);
    TrainingConfig config;
    config.localEpochs = 3;
    config.batchSize = 32;
    Rng rng(1);
    // Only 70 of the 100 examples belong to this client.
    std::vector<uint32_t> indices(70);
    std::iota(indices.begin(), indices.end(), 30u);
    const TrainingResult result = TrainLocal(model, start, data, indices, config, rng);
    EXPECT_EQ(result.samples, 70u);
    EXPECT_EQ(result.steps, 9u); // 3 epochs x (32 + 32 + 6)
    EXPECT_EQ(result.examplesProcessed, 210u);
    EXPECT_EQ(LocalExamples(config, 70), 210u);
    EXPECT_EQ(result.update.size(), start.size());
}

TEST(LocalTrainer, ZeroLearningRateGivesZeroUpdateAndTheStartingLoss)
{
    const Dataset data = Blobs(96, 5);
    SoftmaxModel model(data.features, data.classes);
    std::vector<float> start(model.Layout().TotalSize());
    Rng init(8);
    for (auto& p : start)
    {
        p = static_cast<float>(0.3 * init.Normal());
    }
    TrainingConfig config;
    config.localEpochs = 2;
    config.batchSize = 32; // 96 = 3 full batches, so the batch mean equals the data mean
    config.lr = 0.0;
    Rng rng(2);
    const TrainingResult result = TrainLocal(model, start, data, AllIndices(data), config, rng);
    for (float u : result.update)
    {
        ASSERT_EQ(u, 0.0f);
    }
    EXPECT_NEAR(result.meanLoss, model.Evaluate(start, data).loss, 1e-5);
}

TEST(LocalTrainer, SameSeedIsBitIdenticalOtherSeedIsNot)
{
    const Dataset data = Blobs(300, 6);
    SoftmaxModel model(data.features, data.classes);
    std::vector<float> start(model.Layout().TotalSize(), 0.01f);
    TrainingConfig config;
    config.localEpochs = 2;
    config.batchSize = 10;
    config.lr = 0.1;
    const auto indices = AllIndices(data);
    Rng a(77);
    Rng b(77);
    Rng c(78);
    const TrainingResult first = TrainLocal(model, start, data, indices, config, a);
    const TrainingResult second = TrainLocal(model, start, data, indices, config, b);
    const TrainingResult other = TrainLocal(model, start, data, indices, config, c);
    ASSERT_EQ(first.update.size(), second.update.size());
    EXPECT_EQ(
        std::memcmp(first.update.data(), second.update.data(), first.update.size() * sizeof(float)),
        0);
    EXPECT_EQ(first.meanLoss, second.meanLoss);
    EXPECT_NE(first.update, other.update);
}

TEST(LocalTrainer, NoIndicesMeansNoSteps)
{
    const Dataset data = Blobs(10, 7);
    SoftmaxModel model(data.features, data.classes);
    std::vector<float> start(model.Layout().TotalSize(), 0.5f);
    Rng rng(1);
    const TrainingResult result = TrainLocal(model, start, data, {}, TrainingConfig{}, rng);
    EXPECT_EQ(result.steps, 0u);
    EXPECT_EQ(result.samples, 0u);
    EXPECT_EQ(result.meanLoss, 0.0);
    EXPECT_EQ(result.update, std::vector<float>(start.size(), 0.0f));
}

TEST(LocalTrainer, RejectsBadArguments)
{
    const Dataset data = Blobs(10, 7);
    SoftmaxModel model(data.features, data.classes);
    std::vector<float> start(model.Layout().TotalSize());
    std::vector<float> wrongSize(start.size() + 1);
    const auto indices = AllIndices(data);
    Rng rng(1);
    TrainingConfig zeroBatch;
    zeroBatch.batchSize = 0;
    EXPECT_THROW(TrainLocal(model, start, data, indices, zeroBatch, rng), std::invalid_argument);
    EXPECT_THROW(TrainLocal(model, wrongSize, data, indices, TrainingConfig{}, rng),
                 std::invalid_argument);
}

/**
 * The reference: textbook minibatch SGD with PyTorch's SGD rule, g += wd w + mu (w - w0),
 * v = m v + g (when m > 0), w -= lr v, on the same shuffles. Returns the update.
 */
std::vector<float>
ReferenceSgd(const Model& model,
             const std::vector<float>& start,
             const Dataset& data,
             const TrainingConfig& config,
             uint64_t seed)
{
    Rng rng(seed);
    std::vector<float> params = start;
    std::vector<float> grad(params.size());
    std::vector<float> velocity(params.size(), 0.0f);
    std::vector<uint32_t> order = AllIndices(data);
    const auto lr = static_cast<float>(config.lr);
    const auto momentum = static_cast<float>(config.momentum);
    const auto decay = static_cast<float>(config.weightDecay);
    const auto mu = static_cast<float>(config.proxMu);
    for (uint32_t epoch = 0; epoch < config.localEpochs; ++epoch)
    {
        Shuffle(std::span<uint32_t>(order), rng);
        for (size_t begin = 0; begin < order.size(); begin += config.batchSize)
        {
            const size_t count = std::min<size_t>(config.batchSize, order.size() - begin);
            model.LossAndGradient(params, data, {order.data() + begin, count}, grad);
            for (size_t k = 0; k < params.size(); ++k)
            {
                float g = grad[k];
                if (decay > 0)
                {
                    g += decay * params[k];
                }
                if (mu > 0)
                {
                    g += mu * (params[k] - start[k]);
                }
                if (momentum > 0)
                {
                    velocity[k] = momentum * velocity[k] + g;
                    g = velocity[k];
                }
                params[k] -= lr * g;
            }
        }
    }
    for (size_t k = 0; k < params.size(); ++k)
    {
        params[k] -= start[k];
    }
    return params;
}

TEST(LocalTrainer, MatchesReferenceSgdBitForBit)
{
    // 60 x 10 + 10 = 610 parameters: the trainer's blocked loops, their boundaries and their
    // remainder all run.
    const Dataset data = RandomDataset(150, 60, 10, 9);
    SoftmaxModel model(data.features, data.classes);
    std::vector<float> start(model.Layout().TotalSize());
    Rng init(4);
    for (auto& p : start)
    {
        p = static_cast<float>(0.1 * init.Normal());
    }
    TrainingConfig config;
    config.localEpochs = 2;
    config.batchSize = 16; // 150 = 9 x 16 + 6: the partial batch is exercised too
    config.lr = 0.3;
    const auto indices = AllIndices(data);
    // Each variant with and without the gradient-variance measurement, which must not change
    // the training.
    const auto check = [&](TrainingConfig c, const char* what) {
        const std::vector<float> reference = ReferenceSgd(model, start, data, c, 21);
        for (bool measure : {true, false})
        {
            c.measureGradVariance = measure;
            Rng rng(21);
            const TrainingResult result = TrainLocal(model, start, data, indices, c, 1, rng);
            EXPECT_TRUE(BitIdentical(result.update, reference)) << what << ", measure " << measure;
            EXPECT_EQ(result.gradVariance > 0.0, measure) << what;
        }
    };
    config.momentum = 0.0; // plain SGD, exactly
    check(config, "plain");
    config.momentum = 0.9;
    check(config, "momentum");
    config.weightDecay = 1e-2;
    check(config, "momentum + decay");
    config.proxMu = 0.5;
    check(config, "momentum + decay + prox");
    config.momentum = 0.0;
    check(config, "decay + prox");
}

} // namespace
} // namespace fedran::test
