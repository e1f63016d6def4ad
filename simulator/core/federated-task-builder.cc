#include "simulator/core/federated-task-builder.h"

#include "models/fl/collusion-oracle.h"
#include "models/learning/forecast-baselines.h"
#include "models/learning/idx-reader.h"
#include "models/learning/milan-reader.h"
#include "models/learning/partition.h"
#include "models/learning/synthetic-data.h"
#include "models/learning/traffic-generator.h"
#include "models/learning/traffic-windows.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

namespace fedran
{

namespace
{

/// Runs `step`, prefixing the JSON path to the library's error, which names only a file or a
/// value: DataError stays a DataError, invalid settings become a ScenarioError.
template<typename Step>
auto
AtPath(const std::string& path, Step&& step)
{
    try
    {
        return step();
    }
    catch (const DataError& e)
    {
        throw DataError(path + ": " + e.what());
    }
    catch (const std::invalid_argument& e)
    {
        throw ScenarioError(path + ": " + e.what());
    }
}

/// The data split among clients: loaded and partitioned, or generated per client.
struct SplitData
{
    TrainTestData data;
    std::vector<std::vector<uint32_t>> partition;
    nlohmann::json report;                             ///< FederatedTask::dataReport
    std::shared_ptr<const SyntheticClients> generated; ///< FederatedTask::generated
};

TrainTestData
LoadData(const ScenarioConfig::Data& data)
{
    if (data.dataset == "csv")
    {
        return AtPath("data.csv",
                      [&] { return LoadCsvPair(data.csvTrain, data.csvTest, data.csv); });
    }
    return AtPath("data.path", [&] { return LoadIdxFolder(data.path); });
}

std::vector<std::vector<uint32_t>>
Partition(const ScenarioConfig::Data& config, const Dataset& train, uint32_t clients, Rng& rng)
{
    if (config.partition == "dirichlet")
    {
        return AtPath("data.partition", [&] {
            return PartitionDirichlet(train.y,
                                      train.classes,
                                      clients,
                                      config.alpha,
                                      config.minSamples,
                                      rng);
        });
    }
    if (config.partition == "shards")
    {
        return AtPath("data.partition.shards_per_client", [&] {
            return PartitionShards(train.y, clients, config.shardsPerClient, rng);
        });
    }
    if (config.sizes.kind == SizeSpec::Kind::Lognormal)
    {
        return AtPath("data.partition.sizes", [&] {
            const std::vector<uint32_t> sizes =
                ClientSizes(clients, train.Size(), config.sizes, config.minSamples, rng);
            return PartitionIidSizes(train.Size(), sizes, rng);
        });
    }
    return PartitionIid(train.Size(), clients, rng);
}

TrafficSeries
LoadTrafficSeries(const ScenarioConfig::Data::CellTraffic& c, Rng& rng)
{
    if (c.format == "milan")
    {
        return AtPath("data.cell_traffic.path", [&] {
            return ReadMilanFiles(ListMilanFiles(c.path), ParseTrafficSignal(c.signal), c.cells);
        });
    }
    TrafficGeneratorConfig generator;
    generator.cells = c.cells;
    generator.days = c.days;
    if (c.seed != 0)
    {
        // Its own generator, so the draws after it (an iid partition) still follow the
        // scenario's seed.
        Rng own(c.seed, kPartitionStream);
        return AtPath("data.cell_traffic", [&] { return GenerateTraffic(generator, own); });
    }
    return AtPath("data.cell_traffic", [&] { return GenerateTraffic(generator, rng); });
}

/// Cell traffic: series read or generated, cut into FedDA's examples, split by cell (or iid),
/// and scored by the two baselines on the same test split.
SplitData
MakeTrafficData(const ScenarioConfig& config, uint32_t clients, Rng& rng)
{
    const ScenarioConfig::Data& data = config.data;
    const ForecastWindows& windows = data.cellTraffic.windows;
    const TrafficSeries series = LoadTrafficSeries(data.cellTraffic, rng);
    SplitData split;
    split.data = AtPath("data.cell_traffic", [&] { return MakeForecastData(series, windows); });
    const auto cells = static_cast<uint32_t>(series.cells.size());
    if (data.partition == "by_cell")
    {
        split.partition = AtPath("data.partition", [&] {
            return PartitionByCell(split.data.train.series, cells, clients);
        });
    }
    else
    {
        split.partition = Partition(data, split.data.train, clients, rng);
    }
    const ForecastBaselines baselines = ComputeBaselines(series, windows);
    split.report = {{"data",
                     {{"cells", cells},
                      {"steps", series.Steps()},
                      {"missing_values", series.missing},
                      {"train_examples", split.data.train.Size()},
                      {"test_examples", split.data.test.Size()}}},
                    {"baselines", BaselinesJson(baselines)}};
    if (series.missing > 0)
    {
        std::fprintf(stderr,
                     "fedran: data.cell_traffic: %llu missing (square, interval) values filled "
                     "with 0 (no row means no activity)\n",
                     static_cast<unsigned long long>(series.missing));
    }
    return split;
}

SplitData
MakeSplitData(const ScenarioConfig& config, uint32_t clients)
{
    Rng rng(config.seed, kPartitionStream);
    const ScenarioConfig::Data& data = config.data;
    if (data.dataset == "cell-traffic")
    {
        return MakeTrafficData(config, clients, rng);
    }
    if (data.dataset == "synthetic")
    {
        const ScenarioConfig::Data::Synthetic& s = data.synthetic;
        if (s.onDemand)
        {
            const SyntheticSpec& spec = s;
            auto clientsData = AtPath("data.synthetic", [&] {
                return std::make_shared<const SyntheticClients>(clients,
                                                                spec,
                                                                config.seed,
                                                                kSyntheticClientStreamBase,
                                                                rng);
            });
            SplitData split;
            split.data.train = clientsData->Empty();
            split.data.test = clientsData->TestSet();
            split.generated = std::move(clientsData);
            return split;
        }
        FederatedData generated = AtPath("data.synthetic", [&] {
            return MakeSyntheticLeaf(clients,
                                     s.alpha,
                                     s.beta,
                                     s.features,
                                     s.classes,
                                     s.samples,
                                     s.testFraction,
                                     rng);
        });
        return {std::move(generated.data), std::move(generated.partition), nullptr, nullptr};
    }
    SplitData split;
    split.data = LoadData(data);
    split.partition = Partition(data, split.data.train, clients, rng);
    return split;
}

} // namespace

std::shared_ptr<FederatedTask>
BuildFederatedTask(const ScenarioConfig& config, uint32_t clients)
{
    SplitData split = MakeSplitData(config, clients);
    auto task = std::make_shared<FederatedTask>();
    task->seed = config.seed;
    try
    {
        task->model = MakeModel(config.model, split.data.train.Shape());
    }
    catch (const std::invalid_argument& e)
    {
        throw ScenarioError(e.what()); // the factory's message starts with "model..."
    }
    task->data = std::make_shared<const TrainTestData>(std::move(split.data));
    task->partition = std::move(split.partition);
    task->generated = std::move(split.generated);
    task->dataReport = std::move(split.report);
    task->training = config.training;
    task->serverOptimizer = config.server.optimizer;
    task->uplinkCodec = config.uplinkCodec;
    task->downlinkCodec = config.downlinkCodec;
    task->downlinkClientView = config.downlinkClientView;
    task->robust = config.server.robust;
    task->dp = config.dp;
    task->secagg = config.secagg;
    if (config.secagg.Enabled())
    {
        // The field must hold the sum of the weights without wrapping (the values' sum was
        // checked with the scenario): the largest site's weight is known only now.
        size_t largest = 0;
        for (uint32_t k = 0; k < task->Clients(); ++k)
        {
            largest = std::max<size_t>(largest, task->Examples(k));
        }
        const double weights = double(config.server.clientsPerRound) *
                               std::nearbyint(double(largest) / config.secagg.maxWeight *
                                              double(config.secagg.quantizationRange));
        if (!config.dp.Central() && config.secagg.fieldBits < 64 &&
            weights >= std::ldexp(1.0, int(config.secagg.fieldBits)))
        {
            throw ScenarioError(
                "privacy.secure_aggregation.field_bits: " +
                std::to_string(config.secagg.fieldBits) + " bits cannot hold the sum of " +
                std::to_string(config.server.clientsPerRound) + " weights of up to " +
                std::to_string(largest) + " examples / max_weight " +
                std::to_string(config.secagg.maxWeight) + " x quantization_range " +
                std::to_string(config.secagg.quantizationRange) +
                " without wrapping; raise field_bits or max_weight, or lower quantization_range "
                "(docs/privacy.md)");
        }
    }
    task->selection = config.server.selection;
    task->clientsPerRound = config.server.clientsPerRound;
    task->serverCompute = config.server.compute;
    for (const ClientGroupConfig& group : config.groups)
    {
        task->clientCompute.insert(task->clientCompute.end(), group.count, group.device);
    }
    bool colluding = false;
    bool attacking = false;
    for (const ClientGroupConfig& group : config.groups)
    {
        attacking = attacking || !group.attack.type.empty();
        colluding = colluding || group.attack.Colluding();
    }
    if (attacking)
    {
        for (const ClientGroupConfig& group : config.groups)
        {
            task->attacks.insert(task->attacks.end(), group.count, group.attack);
        }
    }
    if (colluding)
    {
        task->collusion = std::make_shared<CollusionOracle>();
    }
    return task;
}

} // namespace fedran
