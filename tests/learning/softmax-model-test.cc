// SoftmaxModel: layout, loss and gradient against an independent double-precision reference,
// evaluation, and concurrent use of one model object.

#include "model-test-util.h"
#include "models/learning/dataset.h"
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

using test::RandomDataset;

/// Mean cross-entropy written directly from the definition, in double, as the oracle.
double
ReferenceLoss(const std::vector<double>& params,
              const Dataset& data,
              const std::vector<uint32_t>& rows)
{
    const size_t f = data.features;
    const size_t c = data.classes;
    double total = 0.0;
    for (uint32_t r : rows)
    {
        std::vector<double> logits(c);
        for (size_t k = 0; k < c; ++k)
        {
            double z = params[c * f + k];
            for (size_t j = 0; j < f; ++j)
            {
                z += params[k * f + j] * data.Row(r)[j];
            }
            logits[k] = z;
        }
        double sumExp = 0.0;
        for (double z : logits)
        {
            sumExp += std::exp(z);
        }
        total += std::log(sumExp) - logits[data.y[r]];
    }
    return total / static_cast<double>(rows.size());
}

TEST(SoftmaxModel, LayoutNamesAndShapes)
{
    SoftmaxModel model(784, 10);
    const TensorLayout& layout = model.Layout();
    ASSERT_EQ(layout.TensorCount(), 2u);
    EXPECT_EQ(layout.Tensors()[0].name, "dense.weight");
    EXPECT_EQ(layout.Tensors()[0].shape, (std::vector<uint32_t>{10, 784}));
    EXPECT_EQ(layout.Tensors()[1].name, "dense.bias");
    EXPECT_EQ(layout.Tensors()[1].shape, (std::vector<uint32_t>{10}));
    EXPECT_EQ(layout.Offset(0), 0u);
    EXPECT_EQ(layout.Offset(1), 7840u);
    EXPECT_EQ(layout.TotalSize(), 7850u);
}

TEST(SoftmaxModel, RejectsEmptyShapes)
{
    EXPECT_THROW(SoftmaxModel(0, 10), std::invalid_argument);
    EXPECT_THROW(SoftmaxModel(10, 0), std::invalid_argument);
}

TEST(SoftmaxModel, FactoryBuildsSoftmaxAndRejectsUnknownTypes)
{
    auto model = MakeModel("softmax", 5, 3);
    ASSERT_NE(model, nullptr);
    EXPECT_EQ(model->Layout().TotalSize(), 18u);
    EXPECT_THROW(MakeModel("cnn", 5, 3), std::invalid_argument);
    EXPECT_THROW(MakeModel("", 5, 3), std::invalid_argument);
}

TEST(SoftmaxModel, ZeroInitPredictsUniformly)
{
    const Dataset data = RandomDataset(50, 6, 4, 1);
    SoftmaxModel model(6, 4);
    std::vector<float> params(model.Layout().TotalSize(), 123.0f);
    Rng rng(7);
    model.InitParams(params, rng);
    EXPECT_TRUE(std::all_of(params.begin(), params.end(), [](float v) { return v == 0.0f; }));
    const Evaluation eval = model.Evaluate(params, data);
    EXPECT_NEAR(eval.loss, std::log(4.0), 1e-6);
}

TEST(SoftmaxModel, GradientMatchesCentralFiniteDifferences)
{
    constexpr uint32_t kFeatures = 5;
    constexpr uint32_t kClasses = 3;
    const Dataset data = RandomDataset(20, kFeatures, kClasses, 11);
    // Seven rows, one repeated: a minibatch may hold an example twice.
    const std::vector<uint32_t> rows{3, 0, 17, 9, 3, 12, 5};
    SoftmaxModel model(kFeatures, kClasses);

    // Non-trivial parameters, so that the softmax is far from uniform.
    Rng rng(3);
    std::vector<float> params(model.Layout().TotalSize());
    for (auto& p : params)
    {
        p = static_cast<float>(0.8 * rng.Normal());
    }
    std::vector<float> grad(params.size(), -1.0f);
    const double loss = model.LossAndGradient(params, data, rows, grad);

    std::vector<double> point(params.begin(), params.end());
    EXPECT_NEAR(loss, ReferenceLoss(point, data, rows), 1e-5);

    constexpr double kStep = 1e-5;
    double diffNorm = 0.0;
    double refNorm = 0.0;
    for (size_t k = 0; k < params.size(); ++k)
    {
        std::vector<double> plus = point;
        std::vector<double> minus = point;
        plus[k] += kStep;
        minus[k] -= kStep;
        const double numeric =
            (ReferenceLoss(plus, data, rows) - ReferenceLoss(minus, data, rows)) / (2 * kStep);
        // Per element: relative to the derivative, with a floor for derivatives near zero.
        EXPECT_LE(std::abs(grad[k] - numeric), 1e-3 * std::max(std::abs(numeric), 1e-2))
            << "parameter " << k << ": analytic " << grad[k] << ", numeric " << numeric;
        diffNorm += (grad[k] - numeric) * (grad[k] - numeric);
        refNorm += numeric * numeric;
    }
    EXPECT_LT(std::sqrt(diffNorm / refNorm), 1e-3);
}

TEST(SoftmaxModel, GradientIsOverwrittenAndEmptyBatchGivesZero)
{
    const Dataset data = RandomDataset(10, 4, 3, 5);
    SoftmaxModel model(4, 3);
    std::vector<float> params(model.Layout().TotalSize(), 0.1f);
    std::vector<float> grad(params.size(), 42.0f);
    EXPECT_EQ(model.LossAndGradient(params, data, {}, grad), 0.0);
    EXPECT_TRUE(std::all_of(grad.begin(), grad.end(), [](float v) { return v == 0.0f; }));

    // Same batch twice into a dirty buffer: the second result must not accumulate the first.
    const std::vector<uint32_t> rows{1, 2, 3};
    std::vector<float> first(params.size());
    model.LossAndGradient(params, data, rows, first);
    std::fill(grad.begin(), grad.end(), 42.0f);
    model.LossAndGradient(params, data, rows, grad);
    EXPECT_EQ(grad, first);
}

TEST(SoftmaxModel, RejectsMismatchedShapesAndBadRows)
{
    const Dataset data = RandomDataset(10, 4, 3, 5);
    SoftmaxModel model(4, 3);
    std::vector<float> params(model.Layout().TotalSize());
    std::vector<float> grad(params.size());
    std::vector<float> shortParams(params.size() - 1);
    const std::vector<uint32_t> outside{10};
    EXPECT_THROW(model.LossAndGradient(shortParams, data, std::vector<uint32_t>{0}, grad),
                 std::invalid_argument);
    EXPECT_THROW(model.LossAndGradient(params, data, outside, grad), std::invalid_argument);
    SoftmaxModel wider(5, 3);
    std::vector<float> widerParams(wider.Layout().TotalSize());
    EXPECT_THROW(wider.Evaluate(widerParams, data), std::invalid_argument);
}

TEST(SoftmaxModel, EvaluateCountsCorrectPredictionsAcrossBlocks)
{
    // 2500 examples span three evaluation blocks. Feature k is 1 exactly for class k, and the
    // weights make class k win on feature k, except that class 2 is always mispredicted as 0.
    constexpr uint32_t kExamples = 2500;
    Dataset data;
    data.features = 3;
    data.classes = 3;
    data.x.assign(size_t{kExamples} * 3, 0.0f);
    data.y.resize(kExamples);
    for (uint32_t i = 0; i < kExamples; ++i)
    {
        data.y[i] = static_cast<uint8_t>(i % 3);
        data.x[size_t{i} * 3 + i % 3] = 1.0f;
    }
    SoftmaxModel model(3, 3);
    std::vector<float> params{5, 0, 10, 0, 5, 0, 0, 0, 0, 0, 0, 0};
    const Evaluation eval = model.Evaluate(params, data);
    const double classTwo = static_cast<double>(kExamples / 3) / kExamples; // 833 of 2500
    EXPECT_NEAR(eval.accuracy, 1.0 - classTwo, 1e-12);

    std::vector<uint32_t> all(kExamples);
    std::iota(all.begin(), all.end(), 0u);
    std::vector<double> point(params.begin(), params.end());
    EXPECT_NEAR(eval.loss, ReferenceLoss(point, data, all), 1e-6);
}

TEST(SoftmaxModel, ConcurrentCallsMatchSerialResults)
{
    const Dataset data = RandomDataset(400, 30, 7, 9);
    SoftmaxModel model(30, 7);
    test::ExpectConcurrentCallsMatchSerial(model, data);
}

} // namespace
} // namespace fedran
