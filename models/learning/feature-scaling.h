#ifndef FEDRAN_MODELS_LEARNING_FEATURE_SCALING_H
#define FEDRAN_MODELS_LEARNING_FEATURE_SCALING_H

// Rescaling a Dataset's features in place. Min-max ranges are fitted on the training data and
// then applied unchanged to the test data, so that the test set never leaks into the scaling.

#include "models/learning/dataset.h"

#include <vector>

namespace fedran
{

/// Per-feature [min, max] of the data it was fitted on.
struct MinMaxScaler
{
    std::vector<float> min;
    std::vector<float> max;
};

/// The per-feature range of `data`; [0, 0] for every feature of an empty Dataset.
MinMaxScaler FitMinMax(const Dataset& data);

/**
 * x -> (x - min) / (max - min) per feature. A feature constant in the fitted data maps to 0.
 * Values outside the fitted range (test data) land outside [0, 1]; they are not clipped, so no
 * information is lost. Throws std::invalid_argument if the scaler has a different number of
 * features from `data`.
 */
void ApplyMinMax(const MinMaxScaler& scaler, Dataset& data);

/**
 * x -> x / divisor, in float like LoadIdx (so a CSV of 0..255 pixels divided by 255 gives
 * exactly the values LoadIdx gives for the same image). Throws std::invalid_argument for a
 * divisor that is 0 or not finite.
 */
void DivideFeatures(Dataset& data, double divisor);

} // namespace fedran

#endif
