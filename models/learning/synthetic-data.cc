#include "models/learning/synthetic-data.h"

#include "compression/portable-math.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedran
{

namespace
{

void
CheckArguments(uint32_t clients,
               double alpha,
               double beta,
               uint32_t features,
               uint32_t classes,
               double testFraction)
{
    auto fail = [](const std::string& problem) {
        throw std::invalid_argument("MakeSyntheticLeaf: " + problem);
    };
    if (clients == 0 || features == 0 || classes == 0)
    {
        fail("clients, features and classes must all be > 0");
    }
    if (classes > 256)
    {
        fail("labels are uint8_t, so at most 256 classes, got " + std::to_string(classes));
    }
    if (!(alpha >= 0.0) || !std::isfinite(alpha) || !(beta >= 0.0) || !std::isfinite(beta))
    {
        fail("alpha and beta must be finite and >= 0");
    }
    if (!(testFraction >= 0.0) || !(testFraction < 1.0))
    {
        fail("testFraction must be in [0, 1), got " + std::to_string(testFraction));
    }
}

/// One client's generative model: logits = W x + b, x = mean + scale .* N(0, I).
struct ClientModel
{
    std::vector<double> w; ///< classes x features, row-major
    std::vector<double> b;
    std::vector<double> mean;
};

uint8_t
Label(const ClientModel& model, const float* x, uint32_t features, uint32_t classes)
{
    uint32_t best = 0;
    double bestLogit = 0.0;
    for (uint32_t c = 0; c < classes; ++c)
    {
        const double* row = model.w.data() + size_t{c} * features;
        double logit = model.b[c];
        for (uint32_t j = 0; j < features; ++j)
        {
            logit += row[j] * x[j];
        }
        if (c == 0 || logit > bestLogit)
        {
            best = c;
            bestLogit = logit;
        }
    }
    return static_cast<uint8_t>(best);
}

/// Appends `n` examples drawn from `model` to `out`.
void
AppendExamples(const ClientModel& model,
               const std::vector<double>& scale,
               uint32_t n,
               Rng& rng,
               Dataset& out)
{
    const uint32_t features = out.features;
    for (uint32_t i = 0; i < n; ++i)
    {
        const size_t base = out.x.size();
        out.x.resize(base + features);
        float* x = out.x.data() + base;
        for (uint32_t j = 0; j < features; ++j)
        {
            x[j] = static_cast<float>(model.mean[j] + scale[j] * rng.Normal());
        }
        // Labelled from the stored floats, so the label is exactly a function of the data seen.
        out.y.push_back(Label(model, x, features, out.classes));
    }
}

} // namespace

FederatedData
MakeSyntheticLeaf(uint32_t clients,
                  double alpha,
                  double beta,
                  uint32_t features,
                  uint32_t classes,
                  const SizeSpec& sizes,
                  double testFraction,
                  Rng& rng)
{
    CheckArguments(clients, alpha, beta, features, classes, testFraction);
    const std::vector<uint32_t> total = DrawClientSizes(clients, sizes, rng);
    std::vector<uint32_t> testCount(clients);
    size_t trainExamples = 0;
    for (uint32_t k = 0; k < clients; ++k)
    {
        const auto wanted = static_cast<uint32_t>(std::lround(testFraction * total[k]));
        if (total[k] == 0)
        {
            throw std::invalid_argument("MakeSyntheticLeaf: client " + std::to_string(k) +
                                        " drew no examples; raise the sizes' base");
        }
        testCount[k] = std::min(wanted, total[k] - 1);
        trainExamples += total[k] - testCount[k];
    }

    // Draw order follows generate_synthetic.py (all u_k, all B_k, all v_k, then per client its
    // model and examples) so that the structure is recognisable; values differ from numpy's.
    std::vector<double> u(clients);
    std::vector<double> bigB(clients);
    for (double& v : u)
    {
        v = alpha * rng.Normal();
    }
    for (double& v : bigB)
    {
        v = beta * rng.Normal();
    }
    std::vector<ClientModel> models(clients);
    for (uint32_t k = 0; k < clients; ++k)
    {
        models[k].mean.resize(features);
        for (double& v : models[k].mean)
        {
            v = bigB[k] + rng.Normal();
        }
    }
    std::vector<double> scale(features);
    for (uint32_t j = 0; j < features; ++j)
    {
        scale[j] = pmath::Pow(static_cast<double>(j + 1), -0.6); // sqrt of Sigma_jj = j^-1.2
    }

    FederatedData result;
    Dataset& train = result.data.train;
    Dataset& test = result.data.test;
    train.features = test.features = features;
    train.classes = test.classes = classes;
    train.x.reserve(trainExamples * features);
    train.y.reserve(trainExamples);
    result.partition.resize(clients);
    for (uint32_t k = 0; k < clients; ++k)
    {
        ClientModel& model = models[k];
        model.w.resize(size_t{classes} * features);
        model.b.resize(classes);
        for (double& v : model.w)
        {
            v = u[k] + rng.Normal();
        }
        for (double& v : model.b)
        {
            v = u[k] + rng.Normal();
        }
        const auto first = static_cast<uint32_t>(train.Size());
        const uint32_t trainCount = total[k] - testCount[k];
        AppendExamples(model, scale, trainCount, rng, train);
        AppendExamples(model, scale, testCount[k], rng, test);
        auto& part = result.partition[k];
        part.resize(trainCount);
        for (uint32_t i = 0; i < trainCount; ++i)
        {
            part[i] = first + i;
        }
        // Release each client's model as soon as its examples exist.
        model = ClientModel{};
    }
    return result;
}

} // namespace fedran
