#ifndef FEDRAN_MODELS_LEARNING_FORECAST_ERRORS_H
#define FEDRAN_MODELS_LEARNING_FORECAST_ERRORS_H

// What the forecasting models share: the mean squared error they train on (normalised
// targets), the checks of a forecasting dataset, and the errors they report in the series'
// original units (Evaluation's rmse, mae and nrmse), so the three models report alike.

#include "models/learning/dataset.h"
#include "models/learning/model.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace fedran
{

/**
 * Mean squared error of n x outputs predictions against targets (both normalised, row-major),
 * over all n * outputs values; overwrites `predictions` with its gradient, 2 (p - t) / (n *
 * outputs). Returns the sum of squared errors (double), not the mean, so that callers can
 * add batches.
 */
double MseBackward(float* predictions, const float* targets, size_t n, size_t outputs);

/// Throws std::invalid_argument naming `model` unless `data` is a forecasting dataset with
/// `outputs` targets and a series index per example (constant time: called every step).
void CheckForecastData(const std::string& model, const Dataset& data, uint32_t outputs);

/**
 * Accumulates a model's predictions over a dataset, block by block in example order, into an
 * Evaluation: loss = MSE on normalised values; rmse and mae in original units, each value
 * de-normalised with its series' scale (original = value * scale + offset); nrmse = rmse /
 * mean of the true original values, over every value of every example; accuracy NaN.
 */
class ForecastErrors
{
  public:
    /// Adds the predictions (n x data.outputs, normalised) for examples [start, start + n).
    /// Throws std::invalid_argument if an example's series has no scale.
    void Add(const float* predictions, const Dataset& data, size_t start, size_t n);

    /// The errors so far; an empty dataset gives loss 0 and NaN errors.
    Evaluation Result() const;

  private:
    double m_squaredNormalised = 0.0;
    double m_squared = 0.0;
    double m_absolute = 0.0;
    double m_truth = 0.0;
    size_t m_values = 0;
};

} // namespace fedran

#endif
