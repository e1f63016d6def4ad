// What the forecasters share: the temporal MLP's gradient, and Evaluate's errors in original
// units (ForecastErrors) against a hand computation with two series of different scales.

#include "forecast-test-util.h"
#include "model-test-util.h"
#include "models/learning/forecast-errors.h"
#include "models/learning/recurrent-model.h"
#include "models/learning/temporal-mlp-model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace fedran
{
namespace
{

/// The temporal MLP's mean squared error in double: ReLU layers, a linear output layer.
double
ReferenceMlpLoss(const std::vector<uint32_t>& widths,
                 const std::vector<double>& params,
                 const Dataset& data,
                 const std::vector<uint32_t>& rows)
{
    double total = 0.0;
    for (uint32_t row : rows)
    {
        std::vector<double> a(data.Row(row), data.Row(row) + data.features);
        size_t offset = 0;
        for (size_t l = 0; l < widths.size(); ++l)
        {
            std::vector<double> z(widths[l]);
            const double* w = params.data() + offset;
            const double* b = w + widths[l] * a.size();
            offset += widths[l] * (a.size() + 1);
            for (size_t j = 0; j < widths[l]; ++j)
            {
                z[j] = b[j];
                for (size_t k = 0; k < a.size(); ++k)
                {
                    z[j] += w[j * a.size() + k] * a[k];
                }
                if (l + 1 < widths.size())
                {
                    z[j] = std::max(z[j], 0.0);
                }
            }
            a = z;
        }
        for (size_t o = 0; o < data.outputs; ++o)
        {
            const double error = a[o] - data.targets[size_t{row} * data.outputs + o];
            total += error * error;
        }
    }
    return total / (static_cast<double>(rows.size()) * data.outputs);
}

TEST(TemporalMlpModel, GradientMatchesCentralFiniteDifferences)
{
    const Dataset data = test::RandomForecastDataset(10, 6, 3, 2, 4);
    TemporalMlpModel model(data.Shape(), {7, 5});
    const std::vector<float> params = test::InitialParams(model, 2);
    const std::vector<uint32_t> rows{1, 3, 8, 3, 0};
    test::ExpectGradientMatchesReference(model,
                                         params,
                                         data,
                                         rows,
                                         [&](const std::vector<double>& p) {
                                             return ReferenceMlpLoss({7, 5, 2}, p, data, rows);
                                         });
}

TEST(TemporalMlpModel, LayoutIsADenseStack)
{
    TemporalMlpModel model(DataShape{9, 0, 2, 6}, {4});
    const auto& tensors = model.Layout().Tensors();
    ASSERT_EQ(tensors.size(), 4u);
    EXPECT_EQ(tensors[0].name, "fc1.weight");
    EXPECT_EQ(tensors[0].shape, (std::vector<uint32_t>{4, 9}));
    EXPECT_EQ(tensors[2].shape, (std::vector<uint32_t>{2, 4}));
    EXPECT_THROW(TemporalMlpModel(DataShape{9, 10, 0, 0}, {4}), std::invalid_argument);
}

/// Four examples, two of each series (offset 10 scale 2; offset 1000 scale 100), repeated so
/// that Evaluate crosses its 256-row blocks.
Dataset
TwoScaleDataset(uint32_t sequence, uint32_t repeats)
{
    Dataset data;
    data.features = sequence;
    data.sequence = sequence;
    data.outputs = 1;
    const float targets[] = {1.0f, -0.5f, 0.0f, 2.0f};
    for (uint32_t r = 0; r < repeats; ++r)
    {
        for (uint32_t i = 0; i < 4; ++i)
        {
            for (uint32_t t = 0; t < sequence; ++t)
            {
                data.x.push_back(0.1f * static_cast<float>(t + i));
            }
            data.targets.push_back(targets[i]);
            data.series.push_back(i % 2);
        }
    }
    data.scales = {{10.0, 2.0}, {1000.0, 100.0}};
    return data;
}

/// Every model predicting 0.5 for every example (head weights 0, head bias 0.5): normalised
/// errors -0.5, 1, 0.5, -1.5; in original units -1, 100, 1, -150; true values 12, 950, 10, 1200.
void
ExpectHandComputedErrors(const Model& model, const Dataset& data)
{
    std::vector<float> params = test::InitialParams(model, 1);
    const TensorLayout& layout = model.Layout();
    const size_t head = layout.Tensors().size() - 2;
    std::fill_n(params.begin() + layout.Offset(head), layout.Tensors()[head].Size(), 0.0f);
    params[layout.Offset(head + 1)] = 0.5f;
    const Evaluation eval = model.Evaluate(params, data);
    EXPECT_DOUBLE_EQ(eval.loss, 3.75 / 4);
    EXPECT_TRUE(std::isnan(eval.accuracy));
    EXPECT_NEAR(eval.rmse, std::sqrt((1.0 + 10000 + 1 + 22500) / 4), 1e-9);
    EXPECT_NEAR(eval.mae, (1.0 + 100 + 1 + 150) / 4, 1e-9);
    EXPECT_NEAR(eval.nrmse,
                std::sqrt((1.0 + 10000 + 1 + 22500) / 4) / ((12.0 + 950 + 10 + 1200) / 4),
                1e-12);
}

TEST(ForecastErrors, EvaluateMatchesAHandComputationInOriginalUnits)
{
    const Dataset data = TwoScaleDataset(5, 100);
    ExpectHandComputedErrors(TemporalMlpModel(data.Shape(), {}), data);
    ExpectHandComputedErrors(TemporalMlpModel(data.Shape(), {3}), data);
    ExpectHandComputedErrors(RecurrentModel(RecurrentCell::kLstm, data.Shape(), 4, 2), data);
    ExpectHandComputedErrors(RecurrentModel(RecurrentCell::kGru, data.Shape(), 4, 1), data);
}

TEST(ForecastErrors, EmptyGivesNanErrorsAndMissingScalesAreRefused)
{
    const Evaluation empty = ForecastErrors().Result();
    EXPECT_EQ(empty.loss, 0.0);
    EXPECT_TRUE(std::isnan(empty.rmse) && std::isnan(empty.nrmse) && std::isnan(empty.accuracy));

    Dataset data = TwoScaleDataset(3, 1);
    TemporalMlpModel model(data.Shape(), {});
    const std::vector<float> params = test::InitialParams(model, 1);
    data.scales.pop_back();
    EXPECT_THROW(model.Evaluate(params, data), std::invalid_argument);
    data.series.pop_back();
    EXPECT_THROW(model.Evaluate(params, data), std::invalid_argument);
}

TEST(ForecastErrors, MseBackwardWritesTheMeanGradient)
{
    float predictions[] = {1.0f, 2.0f, 0.0f, -1.0f};
    const float targets[] = {0.0f, 2.0f, 1.0f, 1.0f};
    EXPECT_EQ(MseBackward(predictions, targets, 2, 2), 1.0 + 0 + 1 + 4);
    EXPECT_EQ(predictions[0], 0.5f);
    EXPECT_EQ(predictions[1], 0.0f);
    EXPECT_EQ(predictions[2], -0.5f);
    EXPECT_EQ(predictions[3], -1.0f);
}

} // namespace
} // namespace fedran
