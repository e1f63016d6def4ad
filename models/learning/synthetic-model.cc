#include "models/learning/synthetic-model.h"

#include "compression/portable-math.h"

#include <cmath>
#include <stdexcept>

namespace fedran
{

void
CheckSyntheticArguments(const std::string& who,
                        uint32_t clients,
                        double alpha,
                        double beta,
                        uint32_t features,
                        uint32_t classes,
                        double testFraction)
{
    auto fail = [&who](const std::string& problem) {
        throw std::invalid_argument(who + ": " + problem);
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

std::vector<double>
SyntheticScales(uint32_t features)
{
    std::vector<double> scale(features);
    for (uint32_t j = 0; j < features; ++j)
    {
        scale[j] = pmath::Pow(static_cast<double>(j + 1), -0.6); // sqrt of Sigma_jj = j^-1.2
    }
    return scale;
}

void
AppendSyntheticExamples(const SyntheticClientModel& model,
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
        uint32_t best = 0;
        double bestLogit = 0.0;
        for (uint32_t c = 0; c < out.classes; ++c)
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
        out.y.push_back(static_cast<uint8_t>(best));
    }
}

} // namespace fedran
