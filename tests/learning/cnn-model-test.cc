// CnnModel: layout, loss and gradient against a double-precision reference written the
// conventional way (conv -> bias -> ReLU -> pool, then dense), evaluation, learning a small
// image problem, determinism and concurrent use.

#include "model-test-util.h"
#include "models/learning/cnn-model.h"
#include "models/learning/dataset.h"
#include "models/learning/local-trainer.h"

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

/// A small network on non-square two-channel images with an odd width (pooling drops a
/// column): 2x12x11 -> conv 3x3 pad 1 -> 3x12x11 -> pool 3x6x5 -> conv 3x3 -> 4x4x3 -> pool
/// 4x2x1 -> 8 -> 5 -> 3 classes. 232 parameters.
CnnShape
TinyShape()
{
    CnnShape shape;
    shape.imageChannels = 2;
    shape.imageHeight = 12;
    shape.imageWidth = 11;
    shape.kernel = 3;
    shape.padding = {1, 0};
    shape.channels = {3, 4};
    shape.hidden = 5;
    shape.classes = 3;
    return shape;
}

/// A C x H x W activation in double.
struct Volume
{
    size_t c, h, w;
    std::vector<double> v;

    double& At(size_t ci, size_t y, size_t x)
    {
        return v[(ci * h + y) * w + x];
    }
};

/// conv (zero padding) + bias, then ReLU, then 2x2 max pooling in floor mode.
Volume
ConvReluPool(Volume& in, const double* weight, const double* bias, size_t out, size_t k, size_t pad)
{
    const size_t oh = in.h + 2 * pad - k + 1;
    const size_t ow = in.w + 2 * pad - k + 1;
    Volume conv{out, oh, ow, std::vector<double>(out * oh * ow)};
    for (size_t o = 0; o < out; ++o)
    {
        for (size_t y = 0; y < oh; ++y)
        {
            for (size_t x = 0; x < ow; ++x)
            {
                double sum = bias[o];
                for (size_t ci = 0; ci < in.c; ++ci)
                {
                    for (size_t ky = 0; ky < k; ++ky)
                    {
                        for (size_t kx = 0; kx < k; ++kx)
                        {
                            const long iy = static_cast<long>(y + ky) - static_cast<long>(pad);
                            const long ix = static_cast<long>(x + kx) - static_cast<long>(pad);
                            if (iy >= 0 && ix >= 0 && iy < static_cast<long>(in.h) &&
                                ix < static_cast<long>(in.w))
                            {
                                sum += weight[((o * in.c + ci) * k + ky) * k + kx] *
                                       in.At(ci, static_cast<size_t>(iy), static_cast<size_t>(ix));
                            }
                        }
                    }
                }
                conv.At(o, y, x) = std::max(sum, 0.0);
            }
        }
    }
    Volume pooled{out, oh / 2, ow / 2, std::vector<double>(out * (oh / 2) * (ow / 2))};
    for (size_t o = 0; o < out; ++o)
    {
        for (size_t y = 0; y < oh / 2; ++y)
        {
            for (size_t x = 0; x < ow / 2; ++x)
            {
                pooled.At(o, y, x) = std::max({conv.At(o, 2 * y, 2 * x),
                                               conv.At(o, 2 * y, 2 * x + 1),
                                               conv.At(o, 2 * y + 1, 2 * x),
                                               conv.At(o, 2 * y + 1, 2 * x + 1)});
            }
        }
    }
    return pooled;
}

/// y = W x + b (W row-major, out x in), optionally through a ReLU.
std::vector<double>
Dense(const std::vector<double>& x, const double* weight, const double* bias, size_t out, bool relu)
{
    std::vector<double> y(out);
    for (size_t o = 0; o < out; ++o)
    {
        double sum = bias[o];
        for (size_t i = 0; i < x.size(); ++i)
        {
            sum += weight[o * x.size() + i] * x[i];
        }
        y[o] = relu ? std::max(sum, 0.0) : sum;
    }
    return y;
}

std::vector<double>
ReferenceLogits(const std::vector<double>& params, const CnnModel& model, const float* image)
{
    const CnnShape& s = model.Shape();
    const TensorLayout& layout = model.Layout();
    const auto at = [&](size_t tensor) {
        return params.data() + layout.Offset(tensor);
    };
    Volume in{s.imageChannels,
              s.imageHeight,
              s.imageWidth,
              std::vector<double>(image, image + s.Features())};
    Volume p1 = ConvReluPool(in, at(0), at(1), s.channels[0], s.kernel, s.padding[0]);
    Volume p2 = ConvReluPool(p1, at(2), at(3), s.channels[1], s.kernel, s.padding[1]);
    const std::vector<double> hidden = Dense(p2.v, at(4), at(5), s.hidden, true);
    return Dense(hidden, at(6), at(7), s.classes, false);
}

double
ReferenceLoss(const std::vector<double>& params,
              const CnnModel& model,
              const Dataset& data,
              const std::vector<uint32_t>& rows)
{
    double total = 0.0;
    for (uint32_t r : rows)
    {
        total += CrossEntropy(ReferenceLogits(params, model, data.Row(r)), data.y[r]);
    }
    return total / static_cast<double>(rows.size());
}

/// Initial parameters plus noise, so that biases are non-zero and every path is exercised.
std::vector<float>
PerturbedParams(const CnnModel& model, uint64_t seed)
{
    std::vector<float> params = InitialParams(model, seed);
    Rng rng(seed + 1000);
    for (auto& p : params)
    {
        p += static_cast<float>(0.1 * rng.Normal());
    }
    return params;
}

/**
 * 1x12x12 images, class = the quadrant holding a bright 3x3 square (at a random position
 * inside it), on uniform noise of amplitude 0.3.
 */
Dataset
Squares(uint32_t examples, uint64_t seed)
{
    Rng rng(seed);
    Dataset data;
    data.features = 144;
    data.classes = 4;
    data.x.resize(size_t{examples} * 144);
    data.y.resize(examples);
    for (uint32_t i = 0; i < examples; ++i)
    {
        float* image = data.x.data() + size_t{i} * 144;
        for (size_t p = 0; p < 144; ++p)
        {
            image[p] = static_cast<float>(0.3 * rng.Uniform());
        }
        const auto label = static_cast<uint32_t>(rng.UniformInt(4));
        data.y[i] = static_cast<uint8_t>(label);
        const size_t top = 6 * (label / 2) + rng.UniformInt(4);
        const size_t left = 6 * (label % 2) + rng.UniformInt(4);
        for (size_t y = top; y < top + 3; ++y)
        {
            for (size_t x = left; x < left + 3; ++x)
            {
                image[y * 12 + x] = 1.0f;
            }
        }
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

TEST(CnnModel, DefaultLayoutNamesAndShapes)
{
    const CnnShape shape;
    CnnModel model(shape);
    const auto& tensors = model.Layout().Tensors();
    ASSERT_EQ(tensors.size(), 8u);
    const uint32_t c1 = shape.channels[0];
    const uint32_t c2 = shape.channels[1];
    // 28x28 -> conv1 (pad p) -> pool -> conv2 -> pool: side s2.
    const uint32_t s1 = (28 + 2 * shape.padding[0] - 4) / 2;
    const uint32_t s2 = (s1 + 2 * shape.padding[1] - 4) / 2;
    const std::vector<std::string> names{"conv1.weight",
                                         "conv1.bias",
                                         "conv2.weight",
                                         "conv2.bias",
                                         "fc1.weight",
                                         "fc1.bias",
                                         "fc2.weight",
                                         "fc2.bias"};
    const std::vector<std::vector<uint32_t>> shapes{{c1, 1, 5, 5},
                                                    {c1},
                                                    {c2, c1, 5, 5},
                                                    {c2},
                                                    {shape.hidden, c2 * s2 * s2},
                                                    {shape.hidden},
                                                    {10, shape.hidden},
                                                    {10}};
    for (size_t i = 0; i < tensors.size(); ++i)
    {
        EXPECT_EQ(tensors[i].name, names[i]);
        EXPECT_EQ(tensors[i].shape, shapes[i]);
    }
}

TEST(CnnModel, RejectsEmptyOrTooSmallShapes)
{
    CnnShape zeroChannels;
    zeroChannels.channels = {0, 4};
    EXPECT_THROW(CnnModel{zeroChannels}, std::invalid_argument);
    CnnShape zeroHidden;
    zeroHidden.hidden = 0;
    EXPECT_THROW(CnnModel{zeroHidden}, std::invalid_argument);
    CnnShape small = TinyShape();
    small.imageHeight = 6; // conv1 -> 6 -> pool 3 -> conv2 (3x3, no padding) -> 1 -> pool 0
    EXPECT_THROW(CnnModel{small}, std::invalid_argument);
    small.imageHeight = 2;
    small.padding = {0, 0};
    EXPECT_THROW(CnnModel{small}, std::invalid_argument);
}

TEST(CnnModel, GradientMatchesCentralFiniteDifferences)
{
    CnnModel model(TinyShape());
    ASSERT_EQ(model.Layout().TotalSize(), 232u);
    const Dataset data = RandomDataset(20, model.Shape().Features(), 3, 11);
    const std::vector<float> params = PerturbedParams(model, 3);
    const std::vector<uint32_t> rows{3, 0, 17, 9, 3, 12, 5};
    test::ExpectGradientMatchesReference(
        model,
        params,
        data,
        rows,
        [&](const std::vector<double>& point) { return ReferenceLoss(point, model, data, rows); });
}

TEST(CnnModel, BatchesLargerThanAChunkGiveTheFullGradient)
{
    // 45 rows: the model works through them in chunks of 32 and 13 and must combine them
    // into the mean over all 45, as the two halves computed separately give.
    CnnModel model(TinyShape());
    const Dataset data = RandomDataset(60, model.Shape().Features(), 3, 12);
    const std::vector<float> params = PerturbedParams(model, 4);
    std::vector<uint32_t> rows(45);
    std::iota(rows.begin(), rows.end(), 7u);
    const std::vector<uint32_t> head(rows.begin(), rows.begin() + 32);
    const std::vector<uint32_t> tail(rows.begin() + 32, rows.end());
    std::vector<float> all(params.size());
    std::vector<float> first(params.size());
    std::vector<float> second(params.size());
    const double loss = model.LossAndGradient(params, data, rows, all);
    const double headLoss = model.LossAndGradient(params, data, head, first);
    const double tailLoss = model.LossAndGradient(params, data, tail, second);
    EXPECT_NEAR(loss, (32 * headLoss + 13 * tailLoss) / 45, 1e-6);
    const std::vector<double> point(params.begin(), params.end());
    EXPECT_NEAR(loss, ReferenceLoss(point, model, data, rows), 1e-5);
    for (size_t k = 0; k < params.size(); ++k)
    {
        EXPECT_NEAR(all[k], (32 * first[k] + 13 * second[k]) / 45, 1e-6) << k;
    }
}

TEST(CnnModel, EvaluateMatchesReferenceAcrossChunks)
{
    CnnModel model(TinyShape());
    const Dataset data = RandomDataset(75, model.Shape().Features(), 3, 13);
    const std::vector<float> params = PerturbedParams(model, 5);
    const Evaluation eval = model.Evaluate(params, data);
    const std::vector<double> point(params.begin(), params.end());
    EXPECT_NEAR(eval.loss, ReferenceLoss(point, model, data, AllRows(data)), 1e-5);
    size_t correct = 0;
    for (uint32_t r = 0; r < data.Size(); ++r)
    {
        const auto logits = ReferenceLogits(point, model, data.Row(r));
        correct += std::max_element(logits.begin(), logits.end()) - logits.begin() == data.y[r];
    }
    EXPECT_DOUBLE_EQ(eval.accuracy, static_cast<double>(correct) / data.Size());
}

TEST(CnnModel, InitIsKaimingUniformWithZeroBiases)
{
    CnnModel model(TinyShape());
    const std::vector<float> params = InitialParams(model, 1);
    const TensorLayout& layout = model.Layout();
    const double fanIns[] = {2 * 9, 0, 3 * 9, 0, 8, 0, 5, 0};
    for (size_t t = 0; t < layout.TensorCount(); ++t)
    {
        const auto begin = params.begin() + layout.Offset(t);
        const auto end = begin + layout.Tensors()[t].Size();
        const float top = std::abs(*std::max_element(begin, end, [](float a, float b) {
            return std::abs(a) < std::abs(b);
        }));
        if (fanIns[t] == 0)
        {
            EXPECT_EQ(top, 0.0f) << layout.Tensors()[t].name;
            continue;
        }
        const double gain = t == 6 ? 1.0 : 2.0; // fc2 is the output layer
        EXPECT_LE(top, std::sqrt(3 * gain / fanIns[t])) << layout.Tensors()[t].name;
        EXPECT_GT(top, 0.5 * std::sqrt(3 * gain / fanIns[t])) << layout.Tensors()[t].name;
    }
    EXPECT_EQ(InitialParams(model, 1), params);
}

TEST(CnnModel, GradientIsOverwrittenAndEmptyBatchGivesZero)
{
    CnnModel model(TinyShape());
    const Dataset data = RandomDataset(50, model.Shape().Features(), 3, 5);
    const std::vector<float> params = PerturbedParams(model, 1);
    std::vector<float> grad(params.size(), 42.0f);
    EXPECT_EQ(model.LossAndGradient(params, data, {}, grad), 0.0);
    EXPECT_TRUE(std::all_of(grad.begin(), grad.end(), [](float v) { return v == 0.0f; }));

    // Also after a larger batch has left its activations in the scratch buffers.
    std::vector<uint32_t> large(40);
    std::iota(large.begin(), large.end(), 0u);
    const std::vector<uint32_t> rows{1, 2, 3};
    std::vector<float> first(params.size());
    model.LossAndGradient(params, data, rows, first);
    model.LossAndGradient(params, data, large, grad);
    std::fill(grad.begin(), grad.end(), 42.0f);
    model.LossAndGradient(params, data, rows, grad);
    EXPECT_EQ(grad, first);
}

TEST(CnnModel, RejectsMismatchedShapesAndBadRows)
{
    CnnModel model(TinyShape());
    Dataset data = RandomDataset(10, model.Shape().Features(), 3, 5);
    std::vector<float> params(model.Layout().TotalSize());
    std::vector<float> grad(params.size());
    std::vector<float> shortParams(params.size() - 1);
    const std::vector<uint32_t> one{0};
    EXPECT_THROW(model.LossAndGradient(shortParams, data, one, grad), std::invalid_argument);
    EXPECT_THROW(model.LossAndGradient(params, data, std::vector<uint32_t>{10}, grad),
                 std::invalid_argument);
    const Dataset wrongWidth = RandomDataset(10, model.Shape().Features() + 1, 3, 5);
    EXPECT_THROW(model.Evaluate(params, wrongWidth), std::invalid_argument);
    data.y[4] = 3;
    EXPECT_THROW(model.LossAndGradient(params, data, std::vector<uint32_t>{4}, grad),
                 std::invalid_argument);
    EXPECT_THROW(model.Evaluate(params, data), std::invalid_argument);
}

CnnShape
SquaresShape()
{
    CnnShape shape;
    shape.imageHeight = 12;
    shape.imageWidth = 12;
    shape.kernel = 3;
    shape.padding = {1, 0};
    shape.channels = {4, 8};
    shape.hidden = 16;
    shape.classes = 4;
    return shape;
}

TEST(CnnModel, LearnsToLocateASquare)
{
    const Dataset train = Squares(1000, 1);
    const Dataset test = Squares(500, 2);
    CnnModel model(SquaresShape());
    const std::vector<float> start = InitialParams(model, 7);
    TrainingConfig config;
    config.localEpochs = 8;
    config.batchSize = 16;
    config.lr = 0.05;
    Rng rng(8);
    const TrainingResult result = TrainLocal(model, start, train, AllRows(train), config, rng);
    std::vector<float> trained(start);
    for (size_t k = 0; k < trained.size(); ++k)
    {
        trained[k] += result.update[k];
    }
    EXPECT_LT(model.Evaluate(start, test).accuracy, 0.5);
    EXPECT_GT(model.Evaluate(trained, test).accuracy, 0.95);
}

TEST(CnnModel, SameSeedGivesBitIdenticalTraining)
{
    const Dataset data = Squares(200, 3);
    CnnModel model(SquaresShape());
    TrainingConfig config;
    config.localEpochs = 1;
    config.batchSize = 32;
    const auto run = [&](uint64_t seed) {
        const std::vector<float> start = InitialParams(model, seed);
        Rng rng(seed);
        return TrainLocal(model, start, data, AllRows(data), config, rng);
    };
    const TrainingResult a = run(1);
    const TrainingResult b = run(1);
    EXPECT_EQ(a.update, b.update);
    EXPECT_EQ(a.meanLoss, b.meanLoss);
    EXPECT_NE(run(2).update, a.update);
}

TEST(CnnModel, ConcurrentCallsMatchSerialResults)
{
    CnnModel model(TinyShape());
    const Dataset data = RandomDataset(200, model.Shape().Features(), 3, 9);
    test::ExpectConcurrentCallsMatchSerial(model, data);
}

} // namespace
} // namespace fedran
