#include "models/learning/model-checks.h"

#include <stdexcept>

namespace fedran
{

void
CheckParamsAndData(const std::string& model,
                   const TensorLayout& layout,
                   uint32_t features,
                   std::span<const float> params,
                   const Dataset& data)
{
    if (params.size() != layout.TotalSize())
    {
        throw std::invalid_argument(model + ": got " + std::to_string(params.size()) +
                                    " parameters, layout has " +
                                    std::to_string(layout.TotalSize()));
    }
    if (data.features != features || data.x.size() != data.Size() * features)
    {
        throw std::invalid_argument(model + ": dataset has " + std::to_string(data.features) +
                                    " features per example (" + std::to_string(data.x.size()) +
                                    " values for " + std::to_string(data.Size()) +
                                    " examples), model expects " + std::to_string(features));
    }
}

void
CheckInitSize(const std::string& model, const TensorLayout& layout, std::span<float> params)
{
    if (params.size() != layout.TotalSize())
    {
        throw std::invalid_argument(model + "::InitParams: got " + std::to_string(params.size()) +
                                    " floats, layout has " + std::to_string(layout.TotalSize()));
    }
}

void
CheckGradientSize(const std::string& model,
                  std::span<const float> params,
                  std::span<const float> grad)
{
    if (grad.size() != params.size())
    {
        throw std::invalid_argument(model + "::LossAndGradient: gradient has " +
                                    std::to_string(grad.size()) + " floats, parameters " +
                                    std::to_string(params.size()));
    }
}

void
CheckRow(const std::string& model, const Dataset& data, uint32_t row, uint32_t classes)
{
    if (row >= data.Size() || data.y[row] >= classes)
    {
        throw std::invalid_argument(
            model + "::LossAndGradient: row " + std::to_string(row) +
            " is outside the dataset or has a label >= " + std::to_string(classes));
    }
}

void
CheckLabels(const std::string& model,
            const Dataset& data,
            size_t start,
            size_t count,
            uint32_t classes)
{
    for (size_t i = start; i < start + count; ++i)
    {
        if (data.y[i] >= classes)
        {
            throw std::invalid_argument(model + "::Evaluate: example " + std::to_string(i) +
                                        " has label " + std::to_string(data.y[i]) +
                                        " >= " + std::to_string(classes));
        }
    }
}

} // namespace fedran
