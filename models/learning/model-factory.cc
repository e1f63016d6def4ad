#include "models/learning/model.h"
#include "models/learning/softmax-model.h"

#include <stdexcept>
#include <string>

namespace fedran
{

std::unique_ptr<Model>
MakeModel(const std::string& type, uint32_t features, uint32_t classes)
{
    if (type == "softmax")
    {
        return std::make_unique<SoftmaxModel>(features, classes);
    }
    throw std::invalid_argument("unknown model type '" + type + "' (known: softmax)");
}

} // namespace fedran
