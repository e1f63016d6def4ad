// TrainLocal: learning on separable data, step counting, loss bookkeeping and determinism.

#include "models/learning/dataset.h"
#include "models/learning/local-trainer.h"
#include "models/learning/softmax-model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace fedran
{
namespace
{

/**
 * Four Gaussian blobs in 8 dimensions, centres 3 apart along distinct axes and noise 0.3:
 * linearly separable with a wide margin, so softmax regression must reach ~100% accuracy.
 */
Dataset
Blobs(uint32_t examples, uint64_t seed)
{
    constexpr uint32_t kFeatures = 8;
    constexpr uint32_t kClasses = 4;
    Rng rng(seed);
    Dataset data;
    data.features = kFeatures;
    data.classes = kClasses;
    data.x.resize(size_t{examples} * kFeatures);
    data.y.resize(examples);
    for (uint32_t i = 0; i < examples; ++i)
    {
        const auto label = static_cast<uint32_t>(rng.UniformInt(kClasses));
        data.y[i] = static_cast<uint8_t>(label);
        for (uint32_t j = 0; j < kFeatures; ++j)
        {
            const double centre = (j == 2 * label) ? 3.0 : 0.0;
            data.x[size_t{i} * kFeatures + j] = static_cast<float>(centre + 0.3 * rng.Normal());
        }
    }
    return data;
}

std::vector<uint32_t>
AllIndices(const Dataset& data)
{
    std::vector<uint32_t> all(data.Size());
    std::iota(all.begin(), all.end(), 0u);
    return all;
}

std::vector<float>
Apply(const std::vector<float>& start, const std::vector<float>& update)
{
    std::vector<float> out(start.size());
    for (size_t k = 0; k < start.size(); ++k)
    {
        out[k] = start[k] + update[k];
    }
    return out;
}

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
    EXPECT_EQ(std::memcmp(first.update.data(), second.update.data(),
                          first.update.size() * sizeof(float)),
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

} // namespace
} // namespace fedran
