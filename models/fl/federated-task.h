#ifndef FEDRAN_MODELS_FL_FEDERATED_TASK_H
#define FEDRAN_MODELS_FL_FEDERATED_TASK_H

#include "compression/codec-spec.h"
#include "compression/cost-model.h"
#include "models/fl/byzantine-config.h"
#include "models/fl/dp-config.h"
#include "models/fl/rule-spec.h"
#include "models/fl/secagg/secagg-config.h"
#include "models/fl/selection-policy.h"
#include "models/learning/dataset.h"
#include "models/learning/local-trainer.h"
#include "models/learning/model.h"
#include "models/learning/server-optimizer.h"
#include "models/learning/synthetic-clients.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace fedran
{

/// Rng stream numbers: each purpose (and each client) draws from its own stream of the run
/// seed, so adding a client or a codec never shifts anybody else's random numbers.
enum RngStream : uint64_t
{
    kPartitionStream = 1,
    kModelInitStream = 2,
    kServerCodecStream = 3,
    kServerExchangeStream = 4, ///< a two-exchange uplink codec's server-side draws
    kDpNoiseStream = 5,        ///< privacy.dp central: the server's noise
    kDpClipCountStream = 6,    ///< privacy.dp.adaptive_clipping: the clipped count's noise
    kClientTrainStreamBase = 1ull << 32,
    kClientCodecStreamBase = 2ull << 32,
    kComputeSpeedStreamBase = 3ull << 32,  ///< + group index
    kClientAttackStreamBase = 4ull << 32,  ///< + client id: a Byzantine client's draws
    kCollusionStreamBase = 5ull << 32,     ///< + client id: the collusion oracle's training
    kClientCorruptStreamBase = 6ull << 32, ///< + client id: faults.corrupt_uplink
    kClientCrashStreamBase = 7ull << 32,   ///< + client id: faults.crashes
    kEdgeCodecStreamBase = 8ull << 32,     ///< + 2 x hub index (+ 1 for its uplink codec)
    kClientSpreadStreamBase = 9ull << 32,  ///< + client id: GradientSpread's minibatches
    // 10 << 32 is server.selection's (kSelectionStream, selection-policy.h).
    kClientDpNoiseStreamBase = 11ull << 32, ///< + client id: privacy.dp local, a site's noise
    /// + client id: privacy.secure_aggregation, a site's keys, seeds and stochastic rounding
    kClientSecAggStreamBase = 12ull << 32,
    /// + round: privacy.secure_aggregation, the round's neighbour graph and random_k support
    kSecAggRoundStreamBase = 13ull << 32,
    /// + 2 x client id (+ 1 for its test examples): data.synthetic generated on demand
    kSyntheticClientStreamBase = 14ull << 32,
};

/**
 * Everything about the learning problem that the server and every client share, read-only:
 * the model, the data (held once), each client's slice of it, and how to train and encode.
 */
class CollusionOracle; // models/fl/collusion-oracle.h

/// A device's compute beyond training speed: its cores and its speed relative to the
/// reference machine whose seconds `profile` gives (clients.groups[].compute.codec_speed,
/// server.compute.speed). Without a profile its coding and aggregation take no time.
struct DeviceCompute
{
    uint32_t cores = 1;
    double speed = 1.0;
    std::shared_ptr<const CostProfile> profile;
};

struct FederatedTask
{
    uint64_t seed = 1;
    std::shared_ptr<const Model> model;
    std::shared_ptr<const TrainTestData> data;
    std::vector<std::vector<uint32_t>> partition; ///< per client: indices into data->train
    /// data.synthetic.generate "on_demand": each client's examples are generated when it
    /// trains, and `partition` is empty (data->train has the shape and no examples).
    std::shared_ptr<const SyntheticClients> generated;
    TrainingConfig training;
    /// server.clients_per_round: the updates a synchronous round averages.
    uint32_t clientsPerRound = 1;
    ServerOptimizerConfig serverOptimizer;
    CodecSpec uplinkCodec; ///< checked when the scenario was read; built per client
    CodecSpec downlinkCodec;
    /// Downlink frames carry global − (the client's copy) rather than the model itself.
    bool downlinkClientView = false;
    /// server.robust: how the server combines the round's updates.
    RuleSpec robust;
    /// privacy.dp (mode empty: none).
    DpConfig dp;
    /// privacy.secure_aggregation (type empty: none).
    SecAggConfig secagg;
    /// server.selection: which idle clients a synchronous round selects; a policy that needs
    /// losses has every client append its training loss to its update (loss-report.h).
    SelectionSpec selection;
    /// clients.groups[].attack per client id (type empty: honest); empty: nobody attacks.
    std::vector<AttackConfig> attacks;
    /// What colluding attackers (alie, ipm) know of each round; set when there are any. The
    /// server announces each round to it, the attackers ask it (thread-safe).
    std::shared_ptr<CollusionOracle> collusion;
    /// Per client id (empty: no client's coding takes time), and the server's.
    std::vector<DeviceCompute> clientCompute;
    DeviceCompute serverCompute;
    /// Keys run.json adds about the data (forecasting: "data" with cells and missing values
    /// filled, "baselines" with seasonal-naive and persistence errors); null when none.
    nlohmann::json dataReport;

    /// How many clients the data is split among.
    uint32_t Clients() const
    {
        return generated ? generated->Clients() : static_cast<uint32_t>(partition.size());
    }

    /// Client k's training examples (its FedAvg weight).
    uint32_t Examples(uint32_t k) const
    {
        return generated ? generated->TrainCount(k) : static_cast<uint32_t>(partition[k].size());
    }
};

/**
 * A client's training examples as rows of a Dataset: `data->train` and its slice of the
 * partition, or, for data generated on demand, its own examples, generated now and held
 * only as long as this object.
 */
class ClientExamples
{
  public:
    ClientExamples(const FederatedTask& task, uint32_t client);
    ClientExamples(const ClientExamples&) = delete;
    ClientExamples& operator=(const ClientExamples&) = delete;

    const Dataset& Data() const
    {
        return *m_data;
    }

    const std::vector<uint32_t>& Rows() const
    {
        return *m_rows;
    }

  private:
    Dataset m_generated;
    std::vector<uint32_t> m_generatedRows;
    const Dataset* m_data;
    const std::vector<uint32_t>* m_rows;
};

} // namespace fedran

#endif
