#ifndef FEDRAN_MODELS_LEARNING_MODEL_CHECKS_H
#define FEDRAN_MODELS_LEARNING_MODEL_CHECKS_H

// Argument checks shared by the neural models, so that every model rejects a mismatched
// buffer or dataset with the same kind of message (std::invalid_argument naming the model).

#include "compression/codec.h"
#include "models/learning/dataset.h"

#include <cstdint>
#include <span>
#include <string>

namespace fedran
{

/// Throws unless params matches the layout and every example of data has `features` values.
void CheckParamsAndData(const std::string& model,
                        const TensorLayout& layout,
                        uint32_t features,
                        std::span<const float> params,
                        const Dataset& data);

/// Throws unless params (the buffer InitParams fills) has the layout's size.
void CheckInitSize(const std::string& model, const TensorLayout& layout, std::span<float> params);

/// Throws unless grad has as many floats as params.
void CheckGradientSize(const std::string& model,
                       std::span<const float> params,
                       std::span<const float> grad);

/// Throws unless `row` is an example of data whose label is < classes.
void CheckRow(const std::string& model, const Dataset& data, uint32_t row, uint32_t classes);

/// Throws unless every label of data[start, start + count) is < classes.
void CheckLabels(const std::string& model,
                 const Dataset& data,
                 size_t start,
                 size_t count,
                 uint32_t classes);

} // namespace fedran

#endif
