#include "models/learning/synthetic-data.h"

#include "compression/portable-math.h"
#include "models/learning/synthetic-model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedran
{

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
    CheckSyntheticArguments("MakeSyntheticLeaf",
                            clients,
                            alpha,
                            beta,
                            features,
                            classes,
                            testFraction);
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
    std::vector<SyntheticClientModel> models(clients);
    for (uint32_t k = 0; k < clients; ++k)
    {
        models[k].mean.resize(features);
        for (double& v : models[k].mean)
        {
            v = bigB[k] + rng.Normal();
        }
    }
    const std::vector<double> scale = SyntheticScales(features);

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
        SyntheticClientModel& model = models[k];
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
        AppendSyntheticExamples(model, scale, trainCount, rng, train);
        AppendSyntheticExamples(model, scale, testCount[k], rng, test);
        auto& part = result.partition[k];
        part.resize(trainCount);
        for (uint32_t i = 0; i < trainCount; ++i)
        {
            part[i] = first + i;
        }
        // Release each client's model as soon as its examples exist.
        model = SyntheticClientModel{};
    }
    return result;
}

} // namespace fedran
