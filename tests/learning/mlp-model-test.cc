// MlpModel: layout, initialisation, loss and gradient against a double-precision reference,
// evaluation, learning a non-linear problem, determinism and concurrent use.

#include "model-test-util.h"
#include "models/learning/dataset.h"
#include "models/learning/local-trainer.h"
#include "models/learning/mlp-model.h"
#include "models/learning/softmax-model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace fedran
{
namespace
{

using test::CrossEntropy;
using test::InitialParams;
using test::RandomDataset;

/// Logits of one example for the MLP `widths` (hidden..., classes), in double, from the
/// definition: params are fc1.weight, fc1.bias, fc2.weight, ... back to back.
std::vector<double>
ReferenceLogits(const std::vector<double>& params,
                const std::vector<uint32_t>& widths,
                const float* x,
                uint32_t features)
{
    std::vector<double> a(x, x + features);
    size_t offset = 0;
    for (size_t l = 0; l < widths.size(); ++l)
    {
        std::vector<double> z(widths[l]);
        const size_t fanIn = a.size();
        for (size_t o = 0; o < widths[l]; ++o)
        {
            double sum = params[offset + size_t{widths[l]} * fanIn + o]; // bias
            for (size_t i = 0; i < fanIn; ++i)
            {
                sum += params[offset + o * fanIn + i] * a[i];
            }
            z[o] = l + 1 < widths.size() ? std::max(sum, 0.0) : sum;
        }
        offset += size_t{widths[l]} * fanIn + widths[l];
        a = std::move(z);
    }
    return a;
}

double
ReferenceLoss(const std::vector<double>& params,
              const std::vector<uint32_t>& widths,
              const Dataset& data,
              const std::vector<uint32_t>& rows)
{
    double total = 0.0;
    for (uint32_t r : rows)
    {
        total +=
            CrossEntropy(ReferenceLogits(params, widths, data.Row(r), data.features), data.y[r]);
    }
    return total / static_cast<double>(rows.size());
}

/// XOR of the signs of two coordinates in [-1, 1]^2: no linear classifier beats ~50-75%.
Dataset
Xor(uint32_t examples, uint64_t seed)
{
    Rng rng(seed);
    Dataset data;
    data.features = 2;
    data.classes = 2;
    for (uint32_t i = 0; i < examples; ++i)
    {
        const auto x = static_cast<float>(2 * rng.Uniform() - 1);
        const auto y = static_cast<float>(2 * rng.Uniform() - 1);
        data.x.push_back(x);
        data.x.push_back(y);
        data.y.push_back(static_cast<uint8_t>((x > 0) != (y > 0)));
    }
    return data;
}

std::vector<uint32_t>
AllRows(const Dataset& data)
{
    std::vector<uint32_t> all(data.Size());
    std::iota(all.begin(), all.end(), 0u);
    return all;
}

TEST(MlpModel, LayoutNamesAndShapes)
{
    MlpModel model(784, {200, 200}, 10);
    const auto& tensors = model.Layout().Tensors();
    ASSERT_EQ(tensors.size(), 6u);
    const std::vector<std::string> names{"fc1.weight",
                                         "fc1.bias",
                                         "fc2.weight",
                                         "fc2.bias",
                                         "fc3.weight",
                                         "fc3.bias"};
    const std::vector<std::vector<uint32_t>> shapes{{200, 784},
                                                    {200},
                                                    {200, 200},
                                                    {200},
                                                    {10, 200},
                                                    {10}};
    for (size_t i = 0; i < tensors.size(); ++i)
    {
        EXPECT_EQ(tensors[i].name, names[i]);
        EXPECT_EQ(tensors[i].shape, shapes[i]);
    }
    EXPECT_EQ(model.Layout().TotalSize(), 199210u); // McMahan et al.'s 2NN
}

TEST(MlpModel, RejectsZeroSizes)
{
    EXPECT_THROW(MlpModel(0, {4}, 3), std::invalid_argument);
    EXPECT_THROW(MlpModel(5, {4}, 0), std::invalid_argument);
    EXPECT_THROW(MlpModel(5, {4, 0}, 3), std::invalid_argument);
}

TEST(MlpModel, InitIsKaimingUniformWithZeroBiases)
{
    MlpModel model(50, {40}, 10);
    const std::vector<float> params = InitialParams(model, 1);
    const TensorLayout& layout = model.Layout();
    const auto tensor = [&](size_t i) {
        return std::vector<float>(params.begin() + layout.Offset(i),
                                  params.begin() + layout.Offset(i) + layout.Tensors()[i].Size());
    };
    const auto maxAbs = [](const std::vector<float>& v) {
        float m = 0.0f;
        for (float x : v)
        {
            m = std::max(m, std::abs(x));
        }
        return m;
    };
    // fc1 feeds a ReLU: bound sqrt(6 / 50); fc2 is the output layer: sqrt(3 / 40).
    EXPECT_LE(maxAbs(tensor(0)), std::sqrt(6.0f / 50));
    EXPECT_GT(maxAbs(tensor(0)), 0.9f * std::sqrt(6.0f / 50));
    EXPECT_LE(maxAbs(tensor(2)), std::sqrt(3.0f / 40));
    EXPECT_GT(maxAbs(tensor(2)), 0.9f * std::sqrt(3.0f / 40));
    EXPECT_EQ(maxAbs(tensor(1)), 0.0f);
    EXPECT_EQ(maxAbs(tensor(3)), 0.0f);

    EXPECT_EQ(InitialParams(model, 1), params);
    EXPECT_NE(InitialParams(model, 2), params);
}

TEST(MlpModel, GradientMatchesCentralFiniteDifferences)
{
    // 6 -> 4 -> 3 classes, and a deeper 6 -> 5 -> 4 -> 3, on seven rows (one repeated).
    const Dataset data = RandomDataset(20, 6, 3, 11);
    const std::vector<uint32_t> rows{3, 0, 17, 9, 3, 12, 5};
    for (const std::vector<uint32_t>& hidden :
         {std::vector<uint32_t>{4}, std::vector<uint32_t>{5, 4}})
    {
        SCOPED_TRACE(hidden.size());
        MlpModel model(6, hidden, 3);
        std::vector<float> params = InitialParams(model, 3);
        // Non-zero biases, so that the bias gradients and ReLU masks are exercised fully.
        Rng rng(4);
        for (auto& p : params)
        {
            p += static_cast<float>(0.2 * rng.Normal());
        }
        std::vector<uint32_t> widths = hidden;
        widths.push_back(3);
        test::ExpectGradientMatchesReference(model,
                                             params,
                                             data,
                                             rows,
                                             [&](const std::vector<double>& point) {
                                                 return ReferenceLoss(point, widths, data, rows);
                                             });
    }
}

TEST(MlpModel, WithoutHiddenLayersIsSoftmaxRegression)
{
    const Dataset data = RandomDataset(30, 5, 4, 2);
    MlpModel mlp(5, {}, 4);
    SoftmaxModel softmax(5, 4);
    ASSERT_EQ(mlp.Layout().TotalSize(), softmax.Layout().TotalSize());
    EXPECT_EQ(mlp.Layout().Tensors()[0].shape, softmax.Layout().Tensors()[0].shape);
    const std::vector<float> params = InitialParams(mlp, 9);
    const std::vector<uint32_t> rows{1, 4, 9, 16, 25};
    std::vector<float> mlpGrad(params.size());
    std::vector<float> softmaxGrad(params.size());
    EXPECT_NEAR(mlp.LossAndGradient(params, data, rows, mlpGrad),
                softmax.LossAndGradient(params, data, rows, softmaxGrad),
                1e-6);
    for (size_t k = 0; k < params.size(); ++k)
    {
        EXPECT_NEAR(mlpGrad[k], softmaxGrad[k], 1e-6) << k;
    }
    EXPECT_NEAR(mlp.Evaluate(params, data).loss, softmax.Evaluate(params, data).loss, 1e-6);
}

TEST(MlpModel, GradientIsOverwrittenAndEmptyBatchGivesZero)
{
    const Dataset data = RandomDataset(10, 4, 3, 5);
    MlpModel model(4, {6}, 3);
    const std::vector<float> params = InitialParams(model, 1);
    std::vector<float> grad(params.size(), 42.0f);
    EXPECT_EQ(model.LossAndGradient(params, data, {}, grad), 0.0);
    EXPECT_TRUE(std::all_of(grad.begin(), grad.end(), [](float v) { return v == 0.0f; }));

    const std::vector<uint32_t> rows{1, 2, 3};
    std::vector<float> first(params.size());
    model.LossAndGradient(params, data, rows, first);
    std::fill(grad.begin(), grad.end(), 42.0f);
    model.LossAndGradient(params, data, rows, grad);
    EXPECT_EQ(grad, first);
}

TEST(MlpModel, RejectsMismatchedShapesAndBadRows)
{
    Dataset data = RandomDataset(10, 4, 3, 5);
    MlpModel model(4, {6}, 3);
    std::vector<float> params(model.Layout().TotalSize());
    std::vector<float> grad(params.size());
    std::vector<float> shortParams(params.size() - 1);
    const std::vector<uint32_t> one{0};
    EXPECT_THROW(model.LossAndGradient(shortParams, data, one, grad), std::invalid_argument);
    std::vector<float> shortGrad(params.size() - 1);
    EXPECT_THROW(model.LossAndGradient(params, data, one, shortGrad), std::invalid_argument);
    EXPECT_THROW(model.LossAndGradient(params, data, std::vector<uint32_t>{10}, grad),
                 std::invalid_argument);
    EXPECT_THROW(MlpModel(5, {6}, 3).Evaluate(std::vector<float>(6 * 5 + 6 + 3 * 6 + 3), data),
                 std::invalid_argument);
    data.y[7] = 3; // a label the model has no class for
    EXPECT_THROW(model.LossAndGradient(params, data, std::vector<uint32_t>{7}, grad),
                 std::invalid_argument);
    EXPECT_THROW(model.Evaluate(params, data), std::invalid_argument);
}

TEST(MlpModel, EvaluateMatchesReferenceAcrossBlocks)
{
    // 600 examples span three evaluation blocks.
    const Dataset data = RandomDataset(600, 7, 5, 8);
    MlpModel model(7, {9}, 5);
    const std::vector<float> params = InitialParams(model, 2);
    const Evaluation eval = model.Evaluate(params, data);

    const std::vector<double> point(params.begin(), params.end());
    const std::vector<uint32_t> widths{9, 5};
    EXPECT_NEAR(eval.loss, ReferenceLoss(point, widths, data, AllRows(data)), 1e-5);
    size_t correct = 0;
    for (uint32_t r = 0; r < data.Size(); ++r)
    {
        const auto logits = ReferenceLogits(point, widths, data.Row(r), data.features);
        correct += std::max_element(logits.begin(), logits.end()) - logits.begin() == data.y[r];
    }
    EXPECT_DOUBLE_EQ(eval.accuracy, static_cast<double>(correct) / data.Size());
}

TEST(MlpModel, LearnsANonLinearProblem)
{
    const Dataset train = Xor(2000, 1);
    const Dataset test = Xor(1000, 2);
    const std::vector<uint32_t> all = AllRows(train);
    TrainingConfig config;
    config.localEpochs = 20;
    config.batchSize = 16;
    config.lr = 0.1;

    MlpModel mlp(2, {32}, 2);
    const std::vector<float> start = InitialParams(mlp, 5);
    Rng rng(6);
    const TrainingResult result = TrainLocal(mlp, start, train, all, config, rng);
    std::vector<float> trained(start);
    for (size_t k = 0; k < trained.size(); ++k)
    {
        trained[k] += result.update[k];
    }
    EXPECT_GT(mlp.Evaluate(trained, test).accuracy, 0.95);

    // The same budget cannot take a linear model far past chance.
    SoftmaxModel linear(2, 2);
    const std::vector<float> zero(linear.Layout().TotalSize(), 0.0f);
    Rng linearRng(6);
    const TrainingResult linearResult = TrainLocal(linear, zero, train, all, config, linearRng);
    EXPECT_LT(linear.Evaluate(linearResult.update, test).accuracy, 0.8);
}

TEST(MlpModel, SameSeedGivesBitIdenticalTraining)
{
    const Dataset data = RandomDataset(300, 12, 4, 3);
    MlpModel model(12, {16, 8}, 4);
    const std::vector<uint32_t> all = AllRows(data);
    TrainingConfig config;
    config.localEpochs = 2;
    config.batchSize = 32;
    const auto run = [&](uint64_t seed) {
        const std::vector<float> start = InitialParams(model, seed);
        Rng rng(seed);
        return TrainLocal(model, start, data, all, config, rng);
    };
    const TrainingResult a = run(1);
    const TrainingResult b = run(1);
    EXPECT_EQ(a.update, b.update);
    EXPECT_EQ(a.meanLoss, b.meanLoss);
    EXPECT_NE(run(2).update, a.update);
}

TEST(MlpModel, ConcurrentCallsMatchSerialResults)
{
    const Dataset data = RandomDataset(400, 30, 7, 9);
    MlpModel model(30, {20, 10}, 7);
    test::ExpectConcurrentCallsMatchSerial(model, data);
}

} // namespace
} // namespace fedran
