#include "models/learning/synthetic-clients.h"

#include "compression/portable-math.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace fedran
{

struct SyntheticClients::Model
{
    std::vector<double> w; ///< classes x features, row-major
    std::vector<double> b;
    std::vector<double> mean;
};

SyntheticClients::SyntheticClients(uint32_t clients,
                                   const SyntheticSpec& spec,
                                   uint64_t seed,
                                   uint64_t streamBase,
                                   Rng& sizeRng)
    : m_spec(spec)
    , m_seed(seed)
    , m_streamBase(streamBase)
{
    auto fail = [](const std::string& problem) {
        throw std::invalid_argument("SyntheticClients: " + problem);
    };
    if (clients == 0 || spec.features == 0 || spec.classes == 0 || spec.testClients == 0)
    {
        fail("clients, features, classes and test clients must all be > 0");
    }
    if (spec.classes > 256)
    {
        fail("labels are uint8_t, so at most 256 classes, got " + std::to_string(spec.classes));
    }
    if (!(spec.alpha >= 0.0) || !std::isfinite(spec.alpha) || !(spec.beta >= 0.0) ||
        !std::isfinite(spec.beta))
    {
        fail("alpha and beta must be finite and >= 0");
    }
    if (!(spec.testFraction >= 0.0) || !(spec.testFraction < 1.0))
    {
        fail("testFraction must be in [0, 1), got " + std::to_string(spec.testFraction));
    }
    m_total = DrawClientSizes(clients, spec.samples, sizeRng);
    for (uint32_t k = 0; k < clients; ++k)
    {
        if (m_total[k] == 0)
        {
            fail("client " + std::to_string(k) + " drew no examples; raise the sizes' base");
        }
    }
    m_scale.resize(spec.features);
    for (uint32_t j = 0; j < spec.features; ++j)
    {
        m_scale[j] = pmath::Pow(static_cast<double>(j + 1), -0.6);
    }
}

uint32_t
SyntheticClients::TestCount(uint32_t k) const
{
    const auto wanted = static_cast<uint32_t>(std::lround(m_spec.testFraction * m_total[k]));
    return std::min(wanted, m_total[k] - 1);
}

SyntheticClients::Model
SyntheticClients::DrawModel(Rng& rng) const
{
    // The order of MakeSyntheticLeaf for one client: u_k, B_k, v_k, then W_k and b_k.
    const double u = m_spec.alpha * rng.Normal();
    const double bigB = m_spec.beta * rng.Normal();
    Model model;
    model.mean.resize(m_spec.features);
    for (double& v : model.mean)
    {
        v = bigB + rng.Normal();
    }
    model.w.resize(size_t{m_spec.classes} * m_spec.features);
    model.b.resize(m_spec.classes);
    for (double& v : model.w)
    {
        v = u + rng.Normal();
    }
    for (double& v : model.b)
    {
        v = u + rng.Normal();
    }
    return model;
}

void
SyntheticClients::Append(const Model& model, uint32_t n, Rng& rng, Dataset& out) const
{
    const uint32_t features = m_spec.features;
    out.x.reserve(out.x.size() + size_t{n} * features);
    out.y.reserve(out.y.size() + n);
    for (uint32_t i = 0; i < n; ++i)
    {
        const size_t base = out.x.size();
        out.x.resize(base + features);
        float* x = out.x.data() + base;
        for (uint32_t j = 0; j < features; ++j)
        {
            x[j] = static_cast<float>(model.mean[j] + m_scale[j] * rng.Normal());
        }
        // Labelled from the stored floats, as MakeSyntheticLeaf: y = argmax(W x + b).
        uint32_t best = 0;
        double bestLogit = 0.0;
        for (uint32_t c = 0; c < m_spec.classes; ++c)
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

Dataset
SyntheticClients::Empty() const
{
    Dataset empty;
    empty.features = m_spec.features;
    empty.classes = m_spec.classes;
    return empty;
}

Dataset
SyntheticClients::Train(uint32_t k) const
{
    Rng rng(m_seed, m_streamBase + 2 * uint64_t{k});
    const Model model = DrawModel(rng);
    Dataset train = Empty();
    Append(model, TrainCount(k), rng, train);
    return train;
}

Dataset
SyntheticClients::TestSet() const
{
    Dataset test = Empty();
    const uint64_t clients = Clients();
    const uint64_t chosen = std::min<uint64_t>(m_spec.testClients, clients);
    for (uint64_t i = 0; i < chosen; ++i)
    {
        const auto k = static_cast<uint32_t>(i * clients / chosen);
        Rng modelRng(m_seed, m_streamBase + 2 * uint64_t{k});
        const Model model = DrawModel(modelRng);
        Rng testRng(m_seed, m_streamBase + 2 * uint64_t{k} + 1);
        Append(model, TestCount(k), testRng, test);
    }
    return test;
}

} // namespace fedran
