#ifndef FEDRAN_TESTS_LEARNING_TRAINER_TEST_UTIL_H
#define FEDRAN_TESTS_LEARNING_TRAINER_TEST_UTIL_H

// Helpers shared by the TrainLocal tests: separable data, models whose gradients are known
// by hand, a model that records what the trainer asks of it, and vector comparisons.

#include "compression/rng.h"
#include "models/learning/dataset.h"
#include "models/learning/model.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

namespace fedran::test
{

/**
 * Four Gaussian blobs in 8 dimensions, centres 3 apart along distinct axes and noise 0.3:
 * linearly separable with a wide margin, so softmax regression must reach ~100% accuracy.
 */
inline Dataset
Blobs(uint32_t examples, uint64_t seed)
{
    constexpr uint32_t kFeatures = 8;
    constexpr uint32_t kClasses = 4;
    Rng rng(seed);
    Dataset data;
    data.features = kFeatures;
    data.classes = kClasses;
    data.x.resize(size_t{examples} * kFeatures);
    data.y.resize(examples);
    for (uint32_t i = 0; i < examples; ++i)
    {
        const auto label = static_cast<uint32_t>(rng.UniformInt(kClasses));
        data.y[i] = static_cast<uint8_t>(label);
        for (uint32_t j = 0; j < kFeatures; ++j)
        {
            const double centre = (j == 2 * label) ? 3.0 : 0.0;
            data.x[size_t{i} * kFeatures + j] = static_cast<float>(centre + 0.3 * rng.Normal());
        }
    }
    return data;
}

inline std::vector<uint32_t>
AllIndices(const Dataset& data)
{
    std::vector<uint32_t> all(data.Size());
    std::iota(all.begin(), all.end(), 0u);
    return all;
}

inline std::vector<float>
Apply(const std::vector<float>& start, const std::vector<float>& update)
{
    std::vector<float> out(start.size());
    for (size_t k = 0; k < start.size(); ++k)
    {
        out[k] = start[k] + update[k];
    }
    return out;
}

/// `rows` examples with one feature and one class, for the models below that ignore the data.
inline Dataset
Placeholder(uint32_t rows)
{
    Dataset data;
    data.features = 1;
    data.classes = 1;
    data.x.assign(rows, 0.0f);
    data.y.assign(rows, 0);
    return data;
}

/// Loss 0.5 ||w - a||^2 whatever the rows, gradient w - a: steps that can be done by hand.
class QuadraticModel : public Model
{
  public:
    explicit QuadraticModel(std::vector<float> target)
        : m_target(std::move(target))
        , m_layout({{"w", {static_cast<uint32_t>(m_target.size())}}})
    {
    }

    const TensorLayout& Layout() const override
    {
        return m_layout;
    }

    void InitParams(std::span<float> params, Rng&) const override
    {
        std::fill(params.begin(), params.end(), 0.0f);
    }

    double LossAndGradient(std::span<const float> params,
                           const Dataset&,
                           std::span<const uint32_t>,
                           std::span<float> grad) const override
    {
        double loss = 0.0;
        for (size_t k = 0; k < params.size(); ++k)
        {
            grad[k] = params[k] - m_target[k];
            loss += 0.5 * grad[k] * grad[k];
        }
        return loss;
    }

    Evaluation Evaluate(std::span<const float>, const Dataset&) const override
    {
        return {};
    }

  private:
    std::vector<float> m_target;
    TensorLayout m_layout;
};

/// The same gradient at every step whatever the parameters and rows.
class ConstantGradientModel : public QuadraticModel
{
  public:
    explicit ConstantGradientModel(std::vector<float> gradient)
        : QuadraticModel(std::vector<float>(gradient.size()))
        , m_gradient(std::move(gradient))
    {
    }

    double LossAndGradient(std::span<const float>,
                           const Dataset&,
                           std::span<const uint32_t>,
                           std::span<float> grad) const override
    {
        std::copy(m_gradient.begin(), m_gradient.end(), grad.begin());
        return 1.0;
    }

  private:
    std::vector<float> m_gradient;
};

/// Forwards to another model and records every minibatch and gradient it computes.
class RecordingModel : public Model
{
  public:
    explicit RecordingModel(const Model& inner)
        : m_inner(inner)
    {
    }

    const TensorLayout& Layout() const override
    {
        return m_inner.Layout();
    }

    void InitParams(std::span<float> params, Rng& rng) const override
    {
        m_inner.InitParams(params, rng);
    }

    double LossAndGradient(std::span<const float> params,
                           const Dataset& data,
                           std::span<const uint32_t> rows,
                           std::span<float> grad) const override
    {
        const double loss = m_inner.LossAndGradient(params, data, rows, grad);
        batches.emplace_back(rows.begin(), rows.end());
        gradients.emplace_back(grad.begin(), grad.end());
        return loss;
    }

    Evaluation Evaluate(std::span<const float> params, const Dataset& data) const override
    {
        return m_inner.Evaluate(params, data);
    }

    mutable std::vector<std::vector<uint32_t>> batches;
    mutable std::vector<std::vector<float>> gradients;

  private:
    const Model& m_inner;
};

inline double
SquaredNorm(std::span<const float> v)
{
    double sum = 0.0;
    for (float x : v)
    {
        sum += static_cast<double>(x) * x;
    }
    return sum;
}

inline bool
BitIdentical(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

} // namespace fedran::test

#endif
