#ifndef FEDRAN_MODELS_LEARNING_SYNTHETIC_CLIENTS_H
#define FEDRAN_MODELS_LEARNING_SYNTHETIC_CLIENTS_H

// Synthetic(alpha, beta) data generated per client when it is needed, for populations whose
// examples would not fit in memory at once (a million sites hold about 450 million examples
// under FedProx's size distribution). Only the client sizes are kept; a selected client's
// examples are drawn from its own random stream when it trains, and dropped after.

#include "models/learning/client-sizes.h"
#include "models/learning/dataset.h"
#include "models/learning/synthetic-model.h"

#include <cstdint>
#include <vector>

namespace fedran
{

/// What SyntheticClients draws from: the generator's parameters (synthetic-data.h).
struct SyntheticSpec
{
    double alpha = 1.0;
    double beta = 1.0;
    uint32_t features = 60;
    uint32_t classes = 10;
    double testFraction = 0.1;
    SizeSpec samples = SizeSpec::Leaf();
    /// Clients whose held-out examples form the shared test set (evenly spaced ids).
    uint32_t testClients = 1000;
};

/**
 * The generative model of MakeSyntheticLeaf (u_k, B_k, v_k, W_k, b_k, x and y as documented
 * there), but with every draw of client k from its own streams, (seed, streamBase + 2k) for
 * its model and training examples and (seed, streamBase + 2k + 1) for its test examples, so
 * that any client can be generated alone, in any order, with the same result. The values
 * therefore differ from MakeSyntheticLeaf's for the same seed (which draws all clients from
 * one stream); the distribution is the same.
 *
 * Sizes come from DrawClientSizes(clients, spec.samples, sizeRng) at construction, as
 * MakeSyntheticLeaf's, and are split into training and test as there. The shared test set is
 * the test examples of min(testClients, clients) clients, k = floor(i * clients / testClients)
 * (the full population's test set would need every client generated). Throws
 * std::invalid_argument as MakeSyntheticLeaf does.
 */
class SyntheticClients
{
  public:
    SyntheticClients(uint32_t clients,
                     const SyntheticSpec& spec,
                     uint64_t seed,
                     uint64_t streamBase,
                     Rng& sizeRng);

    uint32_t Clients() const
    {
        return static_cast<uint32_t>(m_total.size());
    }

    /// Client k's training examples (and so its FedAvg weight).
    uint32_t TrainCount(uint32_t k) const
    {
        return m_total[k] - TestCount(k);
    }

    /// Client k's training examples, generated now.
    Dataset Train(uint32_t k) const;

    /// The shared test set (see the class comment), generated now.
    Dataset TestSet() const;

    /// A Dataset with the data's shape and no examples (what the model is built from).
    Dataset Empty() const;

  private:
    /// round(testFraction * n_k), at most n_k - 1 (as MakeSyntheticLeaf).
    uint32_t TestCount(uint32_t k) const;
    /// Client k's W_k, b_k and feature means, in MakeSyntheticLeaf's order for one client.
    SyntheticClientModel DrawModel(Rng& rng) const;

    SyntheticSpec m_spec;
    uint64_t m_seed;
    uint64_t m_streamBase;
    std::vector<uint32_t> m_total; ///< each client's examples, training and test
    std::vector<double> m_scale;   ///< sqrt(Sigma_jj) = j^-0.6
};

} // namespace fedran

#endif
