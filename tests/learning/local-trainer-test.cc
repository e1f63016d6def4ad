// TrainLocal: learning on separable data, step counting, loss bookkeeping, the optional
// momentum / weight-decay / FedProx terms, learning-rate schedules, gradient statistics and
// determinism.

#include "models/learning/dataset.h"
#include "models/learning/local-trainer.h"
#include "models/learning/shuffle.h"
#include "models/learning/softmax-model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <numeric>
#include <stdexcept>
#include <utility>
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

/// Uniform features and labels: gradients that differ a lot from batch to batch.
Dataset
Noise(uint32_t examples, uint32_t features, uint32_t classes, uint64_t seed)
{
    Rng rng(seed);
    Dataset data;
    data.features = features;
    data.classes = classes;
    data.x.resize(size_t{examples} * features);
    data.y.resize(examples);
    for (auto& v : data.x)
    {
        v = static_cast<float>(rng.Uniform());
    }
    for (auto& label : data.y)
    {
        label = static_cast<uint8_t>(rng.UniformInt(classes));
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

/// `rows` examples with one feature and one class, for the models below that ignore the data.
Dataset
Placeholder(uint32_t rows)
{
    Dataset data;
    data.features = 1;
    data.classes = 1;
    data.x.assign(rows, 0.0f);
    data.y.assign(rows, 0);
    return data;
}

/// Loss 0.5 ||w - a||^2 whatever the rows, gradient w - a: steps that can be done by hand.
class QuadraticModel : public Model
{
  public:
    explicit QuadraticModel(std::vector<float> target)
        : m_target(std::move(target))
        , m_layout({{"w", {static_cast<uint32_t>(m_target.size())}}})
    {
    }

    const TensorLayout& Layout() const override
    {
        return m_layout;
    }

    void InitParams(std::span<float> params, Rng&) const override
    {
        std::fill(params.begin(), params.end(), 0.0f);
    }

    double LossAndGradient(std::span<const float> params,
                           const Dataset&,
                           std::span<const uint32_t>,
                           std::span<float> grad) const override
    {
        double loss = 0.0;
        for (size_t k = 0; k < params.size(); ++k)
        {
            grad[k] = params[k] - m_target[k];
            loss += 0.5 * grad[k] * grad[k];
        }
        return loss;
    }

    Evaluation Evaluate(std::span<const float>, const Dataset&) const override
    {
        return {};
    }

  private:
    std::vector<float> m_target;
    TensorLayout m_layout;
};

/// The same gradient at every step whatever the parameters and rows.
class ConstantGradientModel : public QuadraticModel
{
  public:
    explicit ConstantGradientModel(std::vector<float> gradient)
        : QuadraticModel(std::vector<float>(gradient.size()))
        , m_gradient(std::move(gradient))
    {
    }

    double LossAndGradient(std::span<const float>,
                           const Dataset&,
                           std::span<const uint32_t>,
                           std::span<float> grad) const override
    {
        std::copy(m_gradient.begin(), m_gradient.end(), grad.begin());
        return 1.0;
    }

  private:
    std::vector<float> m_gradient;
};

/// Forwards to another model and records every minibatch and gradient it computes.
class RecordingModel : public Model
{
  public:
    explicit RecordingModel(const Model& inner)
        : m_inner(inner)
    {
    }

    const TensorLayout& Layout() const override
    {
        return m_inner.Layout();
    }

    void InitParams(std::span<float> params, Rng& rng) const override
    {
        m_inner.InitParams(params, rng);
    }

    double LossAndGradient(std::span<const float> params,
                           const Dataset& data,
                           std::span<const uint32_t> rows,
                           std::span<float> grad) const override
    {
        const double loss = m_inner.LossAndGradient(params, data, rows, grad);
        batches.emplace_back(rows.begin(), rows.end());
        gradients.emplace_back(grad.begin(), grad.end());
        return loss;
    }

    Evaluation Evaluate(std::span<const float> params, const Dataset& data) const override
    {
        return m_inner.Evaluate(params, data);
    }

    mutable std::vector<std::vector<uint32_t>> batches;
    mutable std::vector<std::vector<float>> gradients;

  private:
    const Model& m_inner;
};

double
SquaredNorm(std::span<const float> v)
{
    double sum = 0.0;
    for (float x : v)
    {
        sum += static_cast<double>(x) * x;
    }
    return sum;
}

bool
BitIdentical(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
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
    const Dataset data = Noise(150, 60, 10, 9);
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

TEST(LocalTrainer, LearningRateSchedules)
{
    TrainingConfig config;
    config.lr = 0.1;
    EXPECT_DOUBLE_EQ(LearningRate(config, 1), 0.1);
    EXPECT_DOUBLE_EQ(LearningRate(config, 1000), 0.1);

    config.lrSchedule = LrSchedule::Step;
    config.lrDecay = 0.5;
    config.lrStepRounds = 3;
    EXPECT_DOUBLE_EQ(LearningRate(config, 1), 0.1);
    EXPECT_DOUBLE_EQ(LearningRate(config, 3), 0.1);
    EXPECT_DOUBLE_EQ(LearningRate(config, 4), 0.05);
    EXPECT_DOUBLE_EQ(LearningRate(config, 6), 0.05);
    EXPECT_DOUBLE_EQ(LearningRate(config, 7), 0.025);

    config.lrSchedule = LrSchedule::Exponential;
    config.lrDecay = 0.9;
    EXPECT_DOUBLE_EQ(LearningRate(config, 1), 0.1);
    EXPECT_DOUBLE_EQ(LearningRate(config, 2), 0.09);
    EXPECT_DOUBLE_EQ(LearningRate(config, 11), 0.1 * std::pow(0.9, 10));

    config.lrSchedule = LrSchedule::Cosine;
    config.totalRounds = 10;
    EXPECT_DOUBLE_EQ(LearningRate(config, 1), 0.1);
    EXPECT_NEAR(LearningRate(config, 6), 0.05, 1e-15); // halfway: cos(pi / 2) = 0
    EXPECT_NEAR(LearningRate(config, 10), 0.05 * (1 + std::cos(0.9 * std::numbers::pi)), 1e-15);
    EXPECT_NEAR(LearningRate(config, 11), 0.0, 1e-15);
    EXPECT_NEAR(LearningRate(config, 50), 0.0, 1e-15); // held at 0, not climbing back

    EXPECT_THROW(LearningRate(config, 0), std::invalid_argument);
    config.totalRounds = 0;
    EXPECT_THROW(LearningRate(config, 1), std::invalid_argument);
    config.lrSchedule = LrSchedule::Step;
    config.lrStepRounds = 0;
    EXPECT_THROW(LearningRate(config, 1), std::invalid_argument);
}

TEST(LocalTrainer, ScheduleNamesRoundTrip)
{
    for (LrSchedule s :
         {LrSchedule::Constant, LrSchedule::Step, LrSchedule::Exponential, LrSchedule::Cosine})
    {
        EXPECT_EQ(ParseLrSchedule(LrScheduleName(s)), s);
    }
    EXPECT_EQ(ParseLrSchedule("cosine"), LrSchedule::Cosine);
    EXPECT_THROW(ParseLrSchedule("linear"), std::invalid_argument);
}

TEST(LocalTrainer, TrainsAtTheRoundsLearningRate)
{
    const Dataset data = Blobs(64, 12);
    SoftmaxModel model(data.features, data.classes);
    const std::vector<float> start(model.Layout().TotalSize(), 0.0f);
    const auto indices = AllIndices(data);
    TrainingConfig scheduled;
    scheduled.batchSize = 8;
    scheduled.lr = 0.2;
    scheduled.lrSchedule = LrSchedule::Exponential;
    scheduled.lrDecay = 0.5;
    TrainingConfig constant = scheduled;
    constant.lrSchedule = LrSchedule::Constant;
    constant.lr = 0.1; // the schedule's round-2 rate

    Rng a(2);
    Rng b(2);
    const TrainingResult round2 = TrainLocal(model, start, data, indices, scheduled, 2, a);
    const TrainingResult fixed = TrainLocal(model, start, data, indices, constant, 7, b);
    EXPECT_TRUE(BitIdentical(round2.update, fixed.update));

    // The overload without a round is round 1, and refuses a schedule it cannot follow.
    Rng c(2);
    Rng d(2);
    const TrainingResult implicit = TrainLocal(model, start, data, indices, constant, c);
    const TrainingResult explicitRound = TrainLocal(model, start, data, indices, constant, 1, d);
    EXPECT_TRUE(BitIdentical(implicit.update, explicitRound.update));
    EXPECT_THROW(TrainLocal(model, start, data, indices, scheduled, c), std::invalid_argument);
}

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
    const Dataset data = Noise(37, 60, 5, 14);
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
    const Dataset data = Noise(200, 20, 5, 17);
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
} // namespace fedran
