#include "models/learning/synthetic-clients.h"

#include "models/learning/synthetic-model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace fedran
{

SyntheticClients::SyntheticClients(uint32_t clients,
                                   const SyntheticSpec& spec,
                                   uint64_t seed,
                                   uint64_t streamBase,
                                   Rng& sizeRng)
    : m_spec(spec)
    , m_seed(seed)
    , m_streamBase(streamBase)
{
    CheckSyntheticArguments("SyntheticClients",
                            clients,
                            spec.alpha,
                            spec.beta,
                            spec.features,
                            spec.classes,
                            spec.testFraction);
    if (spec.testClients == 0)
    {
        throw std::invalid_argument("SyntheticClients: test clients must be > 0");
    }
    m_total = DrawClientSizes(clients, spec.samples, sizeRng);
    for (uint32_t k = 0; k < clients; ++k)
    {
        if (m_total[k] == 0)
        {
            throw std::invalid_argument("SyntheticClients: client " + std::to_string(k) +
                                        " drew no examples; raise the sizes' base");
        }
    }
    m_scale = SyntheticScales(spec.features);
}

uint32_t
SyntheticClients::TestCount(uint32_t k) const
{
    const auto wanted = static_cast<uint32_t>(std::lround(m_spec.testFraction * m_total[k]));
    return std::min(wanted, m_total[k] - 1);
}

SyntheticClientModel
SyntheticClients::DrawModel(Rng& rng) const
{
    // The order of MakeSyntheticLeaf for one client: u_k, B_k, v_k, then W_k and b_k.
    const double u = m_spec.alpha * rng.Normal();
    const double bigB = m_spec.beta * rng.Normal();
    SyntheticClientModel model;
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
    const SyntheticClientModel model = DrawModel(rng);
    Dataset train = Empty();
    AppendSyntheticExamples(model, m_scale, TrainCount(k), rng, train);
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
        const SyntheticClientModel model = DrawModel(modelRng);
        Rng testRng(m_seed, m_streamBase + 2 * uint64_t{k} + 1);
        AppendSyntheticExamples(model, m_scale, TestCount(k), testRng, test);
    }
    return test;
}

} // namespace fedran
