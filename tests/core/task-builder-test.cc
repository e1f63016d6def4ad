// From scenario keys to the FederatedTask the applications share: every data, partition,
// model and training key reaches the library, and bad data names its JSON path.

#include "../sim/sim-test-util.h"
#include "models/learning/dataset.h"
#include "simulator/core/federated-task-builder.h"
#include "simulator/scenario/scenario.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>

namespace fedran::test
{
namespace
{

using nlohmann::json;

/// TinyScenario(clients, 2, 1) with `patch` merged in (RFC 7386).
std::shared_ptr<FederatedTask>
Build(uint32_t clients, const json& patch)
{
    json scenario = TinyScenario(clients, 2, 1);
    scenario.merge_patch(patch);
    ValidateScenario(scenario);
    const ScenarioConfig config = ToConfig(scenario);
    return BuildFederatedTask(config, config.TotalClients());
}

/// The message of the exception of type E that `action` throws.
template<typename E>
std::string
MessageOf(const std::function<void()>& action)
{
    try
    {
        action();
    }
    catch (const E& e)
    {
        return e.what();
    }
    ADD_FAILURE() << "expected an exception";
    return "";
}

size_t
Total(const std::vector<std::vector<uint32_t>>& partition)
{
    size_t total = 0;
    for (const auto& rows : partition)
    {
        total += rows.size();
    }
    return total;
}

TEST(TaskBuilder, EveryTrainingKeyReachesTheTrainer)
{
    auto task = Build(4,
                      {{"rounds", 12},
                       {"training",
                        {{"local_steps", 7},
                         {"batch_size", 16},
                         {"lr", 0.2},
                         {"momentum", 0.5},
                         {"weight_decay", 1e-3},
                         {"fedprox_mu", 0.1},
                         {"lr_schedule", {{"type", "exponential"}, {"decay", 0.9}}}}}});
    const TrainingConfig& t = task->training;
    EXPECT_EQ(t.localSteps, 7u);
    EXPECT_EQ(t.batchSize, 16u);
    EXPECT_DOUBLE_EQ(t.momentum, 0.5);
    EXPECT_DOUBLE_EQ(t.weightDecay, 1e-3);
    EXPECT_DOUBLE_EQ(t.proxMu, 0.1);
    EXPECT_EQ(t.lrSchedule, LrSchedule::Exponential);
    EXPECT_DOUBLE_EQ(LearningRate(t, 3), 0.2 * 0.81);
    // local_steps decides the simulated work: 7 batches of 16.
    EXPECT_EQ(LocalExamples(t, uint32_t(task->partition[0].size())), 7u * 16u);
}

TEST(TaskBuilder, ModelIsBuiltFromTheModelObject)
{
    auto mlp = Build(2, {{"model", {{"type", "mlp"}, {"hidden", {32}}}}});
    EXPECT_EQ(mlp->model->Layout().TotalSize(), 784u * 32 + 32 + 32 * 10 + 10);
    auto cnn = Build(2, {{"model", {{"type", "cnn"}, {"channels", {4, 8}}, {"hidden", 16}}}});
    // conv1 4x1x5x5+4, conv2 8x4x5x5+8, dense 16x(8x5x5)+16, out 10x16+10
    EXPECT_EQ(cnn->model->Layout().TotalSize(), 104u + 808 + 3216 + 170);
}

TEST(TaskBuilder, ShardsGiveEachClientFewLabels)
{
    auto task =
        Build(20, {{"data", {{"partition", {{"type", "shards"}, {"shards_per_client", 2}}}}}});
    ASSERT_EQ(task->partition.size(), 20u);
    EXPECT_EQ(Total(task->partition), 60000u);
    for (const auto& rows : task->partition)
    {
        std::set<uint8_t> labels;
        for (uint32_t row : rows)
        {
            labels.insert(task->data->train.y[row]);
        }
        EXPECT_EQ(rows.size(), 3000u);
        EXPECT_LE(labels.size(), 4u); // a shard spans at most two labels
    }
}

TEST(TaskBuilder, LognormalSizesSkewTheClients)
{
    auto task =
        Build(20,
              {{"data",
                {{"partition",
                  {{"min_samples", 200}, {"sizes", {{"type", "lognormal"}, {"sigma", 1.0}}}}}}}});
    EXPECT_EQ(Total(task->partition), 60000u);
    size_t smallest = SIZE_MAX;
    size_t largest = 0;
    for (const auto& rows : task->partition)
    {
        smallest = std::min(smallest, rows.size());
        largest = std::max(largest, rows.size());
    }
    EXPECT_GE(smallest, 200u);
    // exp(N(0, 1)) shares over 20 clients: the largest is many times the smallest.
    EXPECT_GT(largest, 4 * smallest);
}

TEST(TaskBuilder, DirichletFollowsAlphaAndMinSamples)
{
    auto task = Build(10, {{"data", {{"partition", {{"type", "dirichlet"}, {"alpha", 0.1}}}}}});
    EXPECT_EQ(Total(task->partition), 60000u);
    size_t fewLabelClients = 0;
    for (const auto& rows : task->partition)
    {
        std::vector<uint32_t> counts(10, 0);
        for (uint32_t row : rows)
        {
            ++counts[task->data->train.y[row]];
        }
        // Label skew: at alpha 0.1 most clients hold most of their data in one or two labels.
        std::sort(counts.rbegin(), counts.rend());
        fewLabelClients += counts[0] + counts[1] > 0.8 * rows.size();
    }
    EXPECT_GE(fewLabelClients, 6u);
}

TEST(TaskBuilder, CsvFilesAreLoadedWithTheirOptions)
{
    TempDir dir("csvtask");
    WriteFile(dir.Path() / "train.csv", "a,b,kind\n0,10,1\n5,20,0\n10,30,2\n5,10,1\n");
    WriteFile(dir.Path() / "test.csv", "a,b,kind\n10,10,0\n0,30,1\n");
    auto task = Build(2,
                      {{"data",
                        {{"dataset", "csv"},
                         {"csv",
                          {{"train", (dir.Path() / "train.csv").string()},
                           {"test", (dir.Path() / "test.csv").string()},
                           {"label", "kind"},
                           {"scaling", "minmax"}}}}}});
    const Dataset& train = task->data->train;
    EXPECT_EQ(train.features, 2u);
    EXPECT_EQ(train.classes, 3u);
    EXPECT_EQ(train.Size(), 4u);
    EXPECT_EQ(task->data->test.Size(), 2u);
    EXPECT_EQ(train.y, (std::vector<uint8_t>{1, 0, 2, 1}));
    // Min-max fitted on the training file: a in [0, 10], b in [10, 30].
    EXPECT_EQ(train.x, (std::vector<float>{0, 0, 0.5f, 0.5f, 1, 1, 0.5f, 0}));
    EXPECT_EQ(task->data->test.x, (std::vector<float>{1, 0, 0, 1}));
    EXPECT_EQ(Total(task->partition), 4u);
    EXPECT_EQ(task->model->Layout().TotalSize(), 3u * 2 + 3);
}

TEST(TaskBuilder, SyntheticDataComesSplitAmongTheClients)
{
    auto task = Build(5,
                      {{"data",
                        {{"dataset", "synthetic"},
                         {"synthetic",
                          {{"features", 20},
                           {"classes", 4},
                           {"test_fraction", 0.25},
                           {"samples", {{"type", "equal"}, {"base", 40}}}}}}}});
    ASSERT_EQ(task->partition.size(), 5u);
    for (const auto& rows : task->partition)
    {
        EXPECT_EQ(rows.size(), 30u); // 40 each, a quarter held out
    }
    EXPECT_EQ(task->data->train.features, 20u);
    EXPECT_EQ(task->data->test.Size(), 50u);
    EXPECT_EQ(task->model->Layout().TotalSize(), 4u * 20 + 4);
}

TEST(TaskBuilder, SyntheticDataOnDemandKeepsOnlyTheSizes)
{
    // A million sites would hold ~450 million examples up front; on demand the task keeps the
    // sizes, a client's rows exist while it trains, and the test set is a sample of clients'.
    auto task = Build(50,
                      {{"data",
                        {{"dataset", "synthetic"},
                         {"synthetic",
                          {{"features", 20},
                           {"classes", 4},
                           {"test_fraction", 0.25},
                           {"generate", "on_demand"},
                           {"test_clients", 10},
                           {"samples", {{"type", "equal"}, {"base", 40}}}}}}}});
    EXPECT_TRUE(task->partition.empty());
    ASSERT_TRUE(task->generated);
    ASSERT_EQ(task->Clients(), 50u);
    EXPECT_EQ(task->data->train.Size(), 0u);
    EXPECT_EQ(task->data->train.features, 20u);
    EXPECT_EQ(task->data->test.Size(), 10u * 10); // ten clients' held-out quarter
    for (uint32_t k : {0u, 17u, 49u})
    {
        EXPECT_EQ(task->Examples(k), 30u);
        const ClientExamples examples(*task, k);
        ASSERT_EQ(examples.Rows().size(), 30u);
        EXPECT_EQ(examples.Data().Size(), 30u);
        EXPECT_EQ(examples.Rows().back(), 29u);
    }
    EXPECT_EQ(task->model->Layout().TotalSize(), 4u * 20 + 4);
}

TEST(TaskBuilder, DataProblemsNameTheirJsonPath)
{
    const std::string missing = MessageOf<DataError>([] {
        Build(2,
              {{"data",
                {{"dataset", "csv"},
                 {"csv", {{"train", "/nonexistent/a.csv"}, {"test", "/nonexistent/b.csv"}}}}}});
    });
    EXPECT_EQ(missing.rfind("data.csv: ", 0), 0u) << missing;
    EXPECT_NE(missing.find("/nonexistent/a.csv"), std::string::npos) << missing;

    const std::string shards = MessageOf<DataError>([] {
        Build(4, {{"data", {{"partition", {{"type", "shards"}, {"shards_per_client", 20000}}}}}});
    });
    EXPECT_EQ(shards.rfind("data.partition.shards_per_client: ", 0), 0u) << shards;

    const std::string tooFew = MessageOf<DataError>([] {
        Build(4, {{"data", {{"partition", {{"type", "dirichlet"}, {"min_samples", 20000}}}}}});
    });
    EXPECT_EQ(tooFew.rfind("data.partition: ", 0), 0u) << tooFew;

    const std::string noExamples = MessageOf<ScenarioError>([] {
        Build(2,
              {{"data",
                {{"dataset", "synthetic"},
                 {"synthetic", {{"samples", {{"type", "equal"}, {"base", 0}}}}}}}});
    });
    EXPECT_EQ(noExamples.rfind("data.synthetic: ", 0), 0u) << noExamples;
}

TEST(TaskBuilder, CnnOnDataThatAreNotImagesNamesTheModelType)
{
    TempDir dir("csvcnn");
    WriteFile(dir.Path() / "t.csv", "1,0.5,0.25\n0,0.1,0.2\n");
    const std::string message = MessageOf<ScenarioError>([&] {
        Build(2,
              {{"data",
                {{"dataset", "csv"},
                 {"csv",
                  {{"train", (dir.Path() / "t.csv").string()},
                   {"test", (dir.Path() / "t.csv").string()}}}}},
               {"model", {{"type", "cnn"}}}});
    });
    EXPECT_EQ(message.rfind("model.type: cnn takes 28x28", 0), 0u) << message;
}

TEST(TaskBuilder, CellTrafficDataProblemsNameTheirJsonPath)
{
    const std::string noFolder = MessageOf<DataError>([] {
        Build(2,
              {{"data",
                {{"dataset", "cell-traffic"},
                 {"cell_traffic", {{"format", "milan"}, {"path", "/nonexistent/milan"}}}}}});
    });
    EXPECT_EQ(noFolder.rfind("data.cell_traffic.path: /nonexistent/milan", 0), 0u) << noFolder;

    TempDir dir("milan-bad");
    const std::filesystem::path file = dir.Path() / "sms-call-internet-mi-2013-11-01.txt";
    WriteFile(file, "1\t1383260400000\t39\t1\t1\t1\t1\t1\n1\t1383260400000\t39\n");
    const std::string malformed = MessageOf<DataError>([&] {
        Build(2,
              {{"data",
                {{"dataset", "cell-traffic"},
                 {"cell_traffic", {{"format", "milan"}, {"path", dir.Path().string()}}}}}});
    });
    EXPECT_NE(malformed.find(file.string() + ":2: 3 tab-separated fields"), std::string::npos)
        << malformed;

    // 4 generated cells for 5 clients: by_cell would leave a client without data.
    const std::string fewCells = MessageOf<DataError>([] {
        Build(5,
              {{"data",
                {{"dataset", "cell-traffic"}, {"cell_traffic", {{"cells", 4}, {"days", 11}}}}}});
    });
    EXPECT_EQ(fewCells.rfind("data.partition: 4 cells for 5 clients", 0), 0u) << fewCells;

    const std::string tooShort = MessageOf<DataError>([] {
        Build(2,
              {{"data",
                {{"dataset", "cell-traffic"}, {"cell_traffic", {{"cells", 4}, {"days", 7}}}}}});
    });
    EXPECT_EQ(tooShort.rfind("data.cell_traffic: ", 0), 0u) << tooShort;
}

TEST(TaskBuilder, CellTrafficSeedKeepsTheGeneratedCellsAcrossScenarioSeeds)
{
    const auto traffic = [](uint64_t scenarioSeed, uint64_t dataSeed) {
        return Build(4,
                     {{"seed", scenarioSeed},
                      {"data",
                       {{"dataset", "cell-traffic"},
                        {"partition", {{"type", "iid"}}},
                        {"cell_traffic", {{"cells", 8}, {"days", 12}, {"seed", dataSeed}}}}},
                      {"model", {{"type", "temporal_mlp"}}}});
    };
    const auto own1 = traffic(1, 5);
    const auto own2 = traffic(2, 5);
    EXPECT_EQ(own1->data->train.x, own2->data->train.x);
    EXPECT_EQ(own1->data->test.targets, own2->data->test.targets);
    // The partition still follows the scenario's seed.
    EXPECT_NE(own1->partition, own2->partition);
    // Without it every scenario seed generates its own cells, as before.
    EXPECT_NE(traffic(1, 0)->data->train.x, traffic(2, 0)->data->train.x);
    EXPECT_NE(traffic(1, 0)->data->train.x, own1->data->train.x);
}

} // namespace
} // namespace fedran::test
