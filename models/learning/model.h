#ifndef FEDRAN_MODELS_LEARNING_MODEL_H
#define FEDRAN_MODELS_LEARNING_MODEL_H

#include "compression/codec.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace fedran
{

struct Dataset;

/// Loss and accuracy of a model on a set of examples. A forecasting model leaves `accuracy`
/// NaN and fills the errors, in the series' original units (SeriesScale); a classifier leaves
/// them NaN. nrmse = rmse / mean of the true values.
struct Evaluation
{
    double loss = 0.0;
    double accuracy = 0.0;
    double rmse = std::numeric_limits<double>::quiet_NaN();
    double mae = std::numeric_limits<double>::quiet_NaN();
    double nrmse = std::numeric_limits<double>::quiet_NaN();
};

/**
 * A differentiable classifier or forecaster whose parameters are one flat float vector laid out by
 * Layout(). Implementations are stateless with respect to parameters, so one Model object
 * serves every client, and thread-safe for concurrent calls on different buffers.
 */
class Model
{
  public:
    virtual ~Model() = default;

    virtual const TensorLayout& Layout() const = 0;

    /// Writes initial parameters (Layout().TotalSize() floats).
    virtual void InitParams(std::span<float> params, Rng& rng) const = 0;

    /**
     * Mean loss over the n examples `rows` of `data` (a classifier's cross-entropy, a
     * forecaster's squared error on normalised targets); writes its gradient with
     * respect to the parameters into `grad` (overwritten, same size as params).
     */
    virtual double LossAndGradient(std::span<const float> params,
                                   const Dataset& data,
                                   std::span<const uint32_t> rows,
                                   std::span<float> grad) const = 0;

    /// Loss and accuracy (a forecaster: loss and forecast errors) over every example of `data`.
    virtual Evaluation Evaluate(std::span<const float> params, const Dataset& data) const = 0;

    /// Floating-point operations of one example's forward pass, per tensor of Layout(): what
    /// evaluation costs on the simulated clock, and each layer's share of a training step
    /// (its backward pass is twice its forward). The default is a dense layer's: a
    /// multiply-add per weight, one add per bias.
    virtual std::vector<double> ForwardFlopsPerTensor() const
    {
        std::vector<double> flops;
        for (const TensorSpec& tensor : Layout().Tensors())
        {
            flops.push_back((tensor.shape.size() > 1 ? 2.0 : 1.0) * double(tensor.Size()));
        }
        return flops;
    }

    /// The sum of ForwardFlopsPerTensor().
    double ForwardFlops() const
    {
        double total = 0.0;
        for (double flops : ForwardFlopsPerTensor())
        {
            total += flops;
        }
        return total;
    }
};

struct DataShape;

/**
 * Builds the model a scenario's "model" object describes, for data of the given shape.
 *
 * Classifiers (a labelled dataset: shape.classes > 0):
 *   {"type": "softmax"}
 *   {"type": "mlp", "hidden": [200, 200]}             hidden widths; [] is softmax regression
 *   {"type": "cnn", "channels": [16, 32], "hidden": 128}   28x28x1 images only
 * Forecasters (a forecasting dataset: shape.outputs > 0), trained on mean squared error:
 *   {"type": "lstm", "hidden": 32, "layers": 1}       recurrent over the shape.sequence window
 *   {"type": "gru", "hidden": 32, "layers": 1}
 *   {"type": "temporal_mlp", "hidden": [64, 32]}      ReLU perceptron on the whole row
 *
 * Absent keys take the defaults shown ("type" defaults to "softmax"). Throws
 * std::invalid_argument whose message starts with the offending JSON path, e.g.
 * "model.hidden.1: must be a positive integer", "model.hiden: unknown key", or
 * "model.type: ..." for a forecaster on a labelled dataset or a classifier on a forecasting one.
 */
std::unique_ptr<Model> MakeModel(const nlohmann::json& spec, const DataShape& shape);

/// MakeModel(spec, {features, classes}): a classifier on a labelled dataset.
std::unique_ptr<Model> MakeModel(const nlohmann::json& spec, uint32_t features, uint32_t classes);

/**
 * `spec` with every parameter its type takes written out, absent ones at the defaults
 * MakeModel uses, e.g. {"type": "mlp"} -> {"type": "mlp", "hidden": [200, 200]}: what a run
 * record should show. Checks what MakeModel checks without the data (so not cnn's image size)
 * and throws the same std::invalid_argument.
 */
nlohmann::json ModelSpecWithDefaults(const nlohmann::json& spec);

/// MakeModel({"type": type}, features, classes): the model with its default parameters.
std::unique_ptr<Model> MakeModel(const std::string& type, uint32_t features, uint32_t classes);

/// Same as the std::string overload. A string literal converts to both std::string and
/// nlohmann::json, so without this overload MakeModel("mlp", ...) would be ambiguous wherever
/// the full json header is included.
std::unique_ptr<Model> MakeModel(const char* type, uint32_t features, uint32_t classes);

/// Names of every model type, for validation messages and documentation.
std::vector<std::string> ModelTypeNames();

} // namespace fedran

#endif
