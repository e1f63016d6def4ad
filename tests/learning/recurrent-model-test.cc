// LSTM and GRU forecasters: layout, gradients against a double-precision reference written
// from the equations, learning a sine, and the same bits on every matrix kernel.

#include "forecast-test-util.h"
#include "model-test-util.h"
#include "models/learning/local-trainer.h"
#include "models/learning/recurrent-model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

namespace fedran
{
namespace
{

using test::ExpectGradientMatchesReference;
using test::InitialParams;

double
Sigmoid(double x)
{
    return 1.0 / (1.0 + std::exp(-x));
}

/// The model's mean squared error in double, from the equations of docs/forecasting-models.md,
/// reading the parameters in the documented layout order.
double
ReferenceLoss(RecurrentCell cell,
              uint32_t hidden,
              uint32_t layers,
              const std::vector<double>& params,
              const Dataset& data,
              const std::vector<uint32_t>& rows)
{
    const size_t gates = cell == RecurrentCell::kLstm ? 4 : 3;
    const size_t hSize = hidden;
    double total = 0.0;
    for (uint32_t row : rows)
    {
        const float* x = data.Row(row);
        // The sequence as layer 0's input, one value per step.
        std::vector<std::vector<double>> in(data.sequence);
        for (size_t t = 0; t < data.sequence; ++t)
        {
            in[t] = {x[t]};
        }
        size_t offset = 0;
        for (uint32_t l = 0; l < layers; ++l)
        {
            const size_t inputs = in[0].size();
            const double* wih = params.data() + offset;
            const double* whh = wih + gates * hSize * inputs;
            const double* b = whh + gates * hSize * hSize;
            const double* bhn = b + gates * hSize;
            offset +=
                gates * hSize * (inputs + hSize + 1) + (cell == RecurrentCell::kGru ? hSize : 0);
            std::vector<double> h(hSize, 0.0);
            std::vector<double> c(hSize, 0.0);
            std::vector<std::vector<double>> out;
            for (const auto& input : in)
            {
                std::vector<double> xs(gates * hSize);
                std::vector<double> hs(gates * hSize);
                for (size_t r = 0; r < gates * hSize; ++r)
                {
                    for (size_t k = 0; k < inputs; ++k)
                    {
                        xs[r] += wih[r * inputs + k] * input[k];
                    }
                    for (size_t k = 0; k < hSize; ++k)
                    {
                        hs[r] += whh[r * hSize + k] * h[k];
                    }
                }
                std::vector<double> next(hSize);
                for (size_t j = 0; j < hSize; ++j)
                {
                    if (cell == RecurrentCell::kLstm)
                    {
                        const double i = Sigmoid(xs[j] + hs[j] + b[j]);
                        const double f = Sigmoid(xs[hSize + j] + hs[hSize + j] + b[hSize + j]);
                        const double g =
                            std::tanh(xs[2 * hSize + j] + hs[2 * hSize + j] + b[2 * hSize + j]);
                        const double o =
                            Sigmoid(xs[3 * hSize + j] + hs[3 * hSize + j] + b[3 * hSize + j]);
                        c[j] = f * c[j] + i * g;
                        next[j] = o * std::tanh(c[j]);
                    }
                    else
                    {
                        const double r = Sigmoid(xs[j] + b[j] + hs[j]);
                        const double z = Sigmoid(xs[hSize + j] + b[hSize + j] + hs[hSize + j]);
                        const double n = std::tanh(xs[2 * hSize + j] + b[2 * hSize + j] +
                                                   r * (hs[2 * hSize + j] + bhn[j]));
                        next[j] = (1 - z) * n + z * h[j];
                    }
                }
                h = next;
                out.push_back(h);
            }
            in = out;
        }
        // Head: [h_T, the window's last value, side features] -> outputs.
        std::vector<double> z = in.back();
        for (size_t k = data.sequence - 1; k < data.features; ++k)
        {
            z.push_back(x[k]);
        }
        const double* w = params.data() + offset;
        const double* bias = w + data.outputs * z.size();
        for (size_t o = 0; o < data.outputs; ++o)
        {
            double prediction = bias[o];
            for (size_t k = 0; k < z.size(); ++k)
            {
                prediction += w[o * z.size() + k] * z[k];
            }
            const double error = prediction - data.targets[size_t{row} * data.outputs + o];
            total += error * error;
        }
    }
    return total / (static_cast<double>(rows.size()) * data.outputs);
}

/// The model's own initialisation, every value then moved by up to 0.2 so that biases and
/// the forget gate are away from their special starting values.
std::vector<float>
PerturbedParams(const Model& model, uint64_t seed)
{
    std::vector<float> params = InitialParams(model, seed);
    Rng rng(seed + 1);
    for (auto& v : params)
    {
        v += static_cast<float>(0.4 * rng.Uniform() - 0.2);
    }
    return params;
}

void
CheckGradient(RecurrentCell cell, uint32_t hidden, uint32_t layers, uint32_t side, uint32_t outputs)
{
    SCOPED_TRACE(testing::Message() << (cell == RecurrentCell::kLstm ? "lstm" : "gru") << " H "
                                    << hidden << " layers " << layers);
    const Dataset data = test::RandomForecastDataset(9, 5, side, outputs, 3);
    RecurrentModel model(cell, data.Shape(), hidden, layers);
    const std::vector<float> params = PerturbedParams(model, 11);
    const std::vector<uint32_t> rows{0, 4, 7, 2, 4};
    ExpectGradientMatchesReference(model, params, data, rows, [&](const std::vector<double>& p) {
        return ReferenceLoss(cell, hidden, layers, p, data, rows);
    });
}

TEST(RecurrentModel, LstmLayoutNamesEveryGate)
{
    const Dataset data = test::RandomForecastDataset(4, 6, 3, 2, 1);
    RecurrentModel model(RecurrentCell::kLstm, data.Shape(), 8, 2);
    const auto& tensors = model.Layout().Tensors();
    ASSERT_EQ(tensors.size(), 2 * 12u + 2);
    EXPECT_EQ(tensors[0].name, "lstm1.weight_ih_i");
    EXPECT_EQ(tensors[0].shape, (std::vector<uint32_t>{8, 1}));
    EXPECT_EQ(tensors[3].name, "lstm1.weight_ih_o");
    EXPECT_EQ(tensors[4].name, "lstm1.weight_hh_i");
    EXPECT_EQ(tensors[4].shape, (std::vector<uint32_t>{8, 8}));
    EXPECT_EQ(tensors[9].name, "lstm1.bias_f");
    EXPECT_EQ(tensors[12].name, "lstm2.weight_ih_i");
    EXPECT_EQ(tensors[12].shape, (std::vector<uint32_t>{8, 8}));
    EXPECT_EQ(tensors[24].name, "fc1.weight");
    EXPECT_EQ(tensors[24].shape, (std::vector<uint32_t>{2, 8 + 1 + 3}));
    EXPECT_EQ(model.Layout().TotalSize(), 4u * 8 * (1 + 8 + 1) + 4u * 8 * (8 + 8 + 1) + 2 * 12 + 2);

    // Forget biases start at 1, the other biases at 0.
    const std::vector<float> params = InitialParams(model, 1);
    const TensorLayout& layout = model.Layout();
    for (size_t k = 0; k < 8; ++k)
    {
        EXPECT_EQ(params[layout.Offset(8) + k], 0.0f);
        EXPECT_EQ(params[layout.Offset(9) + k], 1.0f);
    }
}

TEST(RecurrentModel, GruLayoutHasTheResetBiasApart)
{
    const Dataset data = test::RandomForecastDataset(4, 6, 0, 1, 1);
    RecurrentModel model(RecurrentCell::kGru, data.Shape(), 5, 1);
    const auto& tensors = model.Layout().Tensors();
    ASSERT_EQ(tensors.size(), 10u + 2);
    EXPECT_EQ(tensors[2].name, "gru1.weight_ih_n");
    EXPECT_EQ(tensors[9].name, "gru1.bias_hn");
    EXPECT_EQ(model.Layout().TotalSize(), 3u * 5 * (1 + 5 + 1) + 5 + 6 + 1);
    EXPECT_EQ(model.ForwardFlopsPerTensor().size(), tensors.size());
    // weight_hh: a multiply-add per weight and step.
    EXPECT_EQ(model.ForwardFlopsPerTensor()[3], 2.0 * 5 * 5 * 6);
}

TEST(RecurrentModel, RejectsShapesWithoutASequence)
{
    DataShape shape{6, 0, 1, 0};
    EXPECT_THROW(RecurrentModel(RecurrentCell::kLstm, shape, 4, 1), std::invalid_argument);
    shape.sequence = 7;
    EXPECT_THROW(RecurrentModel(RecurrentCell::kGru, shape, 4, 1), std::invalid_argument);
    shape.sequence = 6;
    EXPECT_THROW(RecurrentModel(RecurrentCell::kGru, shape, 0, 1), std::invalid_argument);
    EXPECT_THROW(RecurrentModel(RecurrentCell::kGru, shape, 4, 0), std::invalid_argument);
}

TEST(RecurrentModel, LstmGradientMatchesCentralFiniteDifferences)
{
    CheckGradient(RecurrentCell::kLstm, 4, 1, 2, 2);
    CheckGradient(RecurrentCell::kLstm, 3, 2, 0, 1);
}

TEST(RecurrentModel, GruGradientMatchesCentralFiniteDifferences)
{
    CheckGradient(RecurrentCell::kGru, 4, 1, 2, 2);
    CheckGradient(RecurrentCell::kGru, 3, 2, 0, 1);
}

TEST(RecurrentModel, GradientIsOverwrittenAndEmptyBatchGivesZero)
{
    const Dataset data = test::RandomForecastDataset(6, 4, 1, 1, 2);
    RecurrentModel model(RecurrentCell::kLstm, data.Shape(), 4, 1);
    const std::vector<float> params = InitialParams(model, 3);
    std::vector<float> grad(params.size(), 5.0f);
    EXPECT_EQ(model.LossAndGradient(params, data, {}, grad), 0.0);
    EXPECT_EQ(grad, std::vector<float>(params.size(), 0.0f));
    const std::vector<uint32_t> rows{1, 2};
    std::vector<float> first(params.size(), 9.0f);
    model.LossAndGradient(params, data, rows, first);
    model.LossAndGradient(params, data, rows, grad);
    EXPECT_EQ(grad, first);
    const std::vector<uint32_t> bad{6};
    EXPECT_THROW(model.LossAndGradient(params, data, bad, grad), std::invalid_argument);
}

/// Trains on a noisy sine's first windows and evaluates on later ones.
void
ExpectLearnsASine(RecurrentCell cell)
{
    const Dataset train = test::SineWindows(240, 8, 0, 0.05, 1);
    const Dataset test = test::SineWindows(96, 8, 300, 0.05, 2);
    RecurrentModel model(cell, train.Shape(), 12, 1);
    const std::vector<float> start = InitialParams(model, 4);
    std::vector<uint32_t> all(train.Size());
    std::iota(all.begin(), all.end(), 0u);
    TrainingConfig config;
    config.localEpochs = 20; // 20 epochs of 15 batches: 300 steps
    config.batchSize = 16;
    config.lr = 0.1;
    config.momentum = 0.9;
    Rng rng(5);
    const TrainingResult result = TrainLocal(model, start, train, all, config, rng);
    std::vector<float> trained(start);
    for (size_t k = 0; k < trained.size(); ++k)
    {
        trained[k] += result.update[k];
    }
    const double before = model.Evaluate(start, test).loss;
    const double after = model.Evaluate(trained, test).loss;
    testing::Test::RecordProperty("test_mse_before", testing::PrintToString(before));
    testing::Test::RecordProperty("test_mse_after", testing::PrintToString(after));
    EXPECT_GT(before, 0.1);
    EXPECT_LT(after, 0.1 * before) << "before " << before << " after " << after;
}

TEST(RecurrentModel, LstmLearnsASine)
{
    ExpectLearnsASine(RecurrentCell::kLstm);
}

TEST(RecurrentModel, GruLearnsASine)
{
    ExpectLearnsASine(RecurrentCell::kGru);
}

/// FNV-1a over the loss and gradient bits.
uint64_t
GradientHash(RecurrentCell cell)
{
    const Dataset data = test::RandomForecastDataset(40, 12, 3, 2, 8);
    RecurrentModel model(cell, data.Shape(), 16, 2);
    const std::vector<float> params = PerturbedParams(model, 9);
    std::vector<uint32_t> rows(32);
    std::iota(rows.begin(), rows.end(), 4u);
    std::vector<float> grad(params.size());
    const double loss = model.LossAndGradient(params, data, rows, grad);
    uint64_t hash = 1469598103934665603ull;
    const auto mix = [&](const void* bytes, size_t size) {
        for (size_t k = 0; k < size; ++k)
        {
            hash = (hash ^ static_cast<const unsigned char*>(bytes)[k]) * 1099511628211ull;
        }
    };
    mix(&loss, sizeof loss);
    mix(grad.data(), grad.size() * sizeof(float));
    return hash;
}

// Recorded with FEDRAN_GEMM_ISA=generic; the same with avx2 and avx512 (the portable kernels
// and activations.h give the same bits on every x86-64). A change here changes every trained
// forecaster.
TEST(RecurrentModel, GradientBitsAreTheSameOnEveryHost)
{
    EXPECT_EQ(GradientHash(RecurrentCell::kLstm), 11322198379611199749ull);
    EXPECT_EQ(GradientHash(RecurrentCell::kGru), 1765236413356708028ull);
}

TEST(RecurrentModel, ConcurrentCallsMatchSerialResults)
{
    const Dataset data = test::RandomForecastDataset(80, 7, 2, 1, 6);
    test::ExpectConcurrentCallsMatchSerial(RecurrentModel(RecurrentCell::kLstm, data.Shape(), 6, 2),
                                           data);
    test::ExpectConcurrentCallsMatchSerial(RecurrentModel(RecurrentCell::kGru, data.Shape(), 6, 1),
                                           data);
}

} // namespace
} // namespace fedran
