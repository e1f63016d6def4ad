// The learning keys of a scenario ("data", "model", "training"): every key reaches its typed
// field, run.json records what was used, and bad values or combinations name their path.

#include "scenario-test-util.h"

#include <gtest/gtest.h>

#include <string>

namespace fedran
{
namespace
{

using nlohmann::json;
using test::MinimalScenario;
using test::ScenarioErrorOf;

/// MinimalScenario with `patch` merged in (RFC 7386: objects merge, other values replace).
json
With(const json& patch)
{
    json scenario = MinimalScenario();
    scenario.merge_patch(patch);
    return scenario;
}

std::string
ErrorOf(const json& patch)
{
    return ScenarioErrorOf([&] { ToConfig(With(patch)); });
}

TEST(LearningKeys, DefaultsAreFedAvgWithPlainSgdOnIidFashionMnist)
{
    const ScenarioConfig config = ToConfig(MinimalScenario());
    EXPECT_EQ(config.data.dataset, "fashion-mnist");
    EXPECT_EQ(config.data.partition, "iid");
    EXPECT_EQ(config.data.sizes.kind, SizeSpec::Kind::Equal);
    EXPECT_EQ(config.data.shardsPerClient, 2u);
    EXPECT_EQ(config.model, json({{"type", "softmax"}}));
    EXPECT_EQ(config.training.localSteps, 0u);
    EXPECT_EQ(config.training.momentum, 0.0);
    EXPECT_EQ(config.training.weightDecay, 0.0);
    EXPECT_EQ(config.training.proxMu, 0.0);
    EXPECT_EQ(config.training.lrSchedule, LrSchedule::Constant);
    // Only the dataset in use is recorded.
    EXPECT_FALSE(config.resolved["data"].contains("synthetic"));
    EXPECT_FALSE(config.resolved["data"].contains("csv"));
    EXPECT_EQ(config.resolved["training"]["lr_schedule"], json({{"type", "constant"}}));
}

TEST(LearningKeys, EveryTrainingKeyReachesTheTrainingConfig)
{
    const ScenarioConfig config = ToConfig(
        With({{"rounds", 40},
              {"training",
               {{"local_steps", 25},
                {"batch_size", 64},
                {"lr", 0.1},
                {"momentum", 0.9},
                {"weight_decay", 5e-4},
                {"fedprox_mu", 0.01},
                {"lr_schedule", {{"type", "step"}, {"decay", 0.5}, {"step_rounds", 10}}}}}}));
    const TrainingConfig& t = config.training;
    EXPECT_EQ(t.localSteps, 25u);
    EXPECT_EQ(t.batchSize, 64u);
    EXPECT_DOUBLE_EQ(t.lr, 0.1);
    EXPECT_DOUBLE_EQ(t.momentum, 0.9);
    EXPECT_DOUBLE_EQ(t.weightDecay, 5e-4);
    EXPECT_DOUBLE_EQ(t.proxMu, 0.01);
    EXPECT_EQ(t.lrSchedule, LrSchedule::Step);
    EXPECT_DOUBLE_EQ(t.lrDecay, 0.5);
    EXPECT_EQ(t.lrStepRounds, 10u);
    EXPECT_DOUBLE_EQ(LearningRate(t, 11), 0.05);
}

TEST(LearningKeys, CosineScheduleSpansTheScenarioRounds)
{
    const ScenarioConfig config =
        ToConfig(With({{"rounds", 20}, {"training", {{"lr_schedule", {{"type", "cosine"}}}}}}));
    EXPECT_EQ(config.training.lrSchedule, LrSchedule::Cosine);
    EXPECT_EQ(config.training.totalRounds, 20u);
    EXPECT_NEAR(LearningRate(config.training, 11), 0.025, 1e-12);
}

TEST(LearningKeys, ScheduleParametersMustMatchTheSchedule)
{
    EXPECT_EQ(ErrorOf({{"training", {{"lr_schedule", {{"type", "exponential"}}}}}}),
              "training.lr_schedule.decay: required by schedule \"exponential\"");
    EXPECT_EQ(ErrorOf({{"training", {{"lr_schedule", {{"type", "step"}, {"decay", 0.5}}}}}}),
              "training.lr_schedule.step_rounds: required by schedule \"step\"");
    EXPECT_EQ(ErrorOf({{"training", {{"lr_schedule", {{"type", "cosine"}, {"decay", 0.5}}}}}}),
              "training.lr_schedule.decay: not a parameter of schedule \"cosine\"");
    EXPECT_EQ(ErrorOf({{"training",
                        {{"lr_schedule",
                          {{"type", "exponential"}, {"decay", 0.9}, {"step_rounds", 3}}}}}}),
              "training.lr_schedule.step_rounds: not a parameter of schedule \"exponential\"");
}

TEST(LearningKeys, OutOfRangeTrainingValuesNameTheirPath)
{
    auto startsWith = [](const std::string& message, const std::string& path) {
        return message.rfind(path + ": ", 0) == 0;
    };
    EXPECT_PRED2(startsWith, ErrorOf({{"training", {{"momentum", 1.0}}}}), "training.momentum");
    EXPECT_PRED2(startsWith,
                 ErrorOf({{"training", {{"weight_decay", -1}}}}),
                 "training.weight_decay");
    EXPECT_PRED2(startsWith,
                 ErrorOf({{"training", {{"fedprox_mu", -0.1}}}}),
                 "training.fedprox_mu");
    EXPECT_PRED2(startsWith, ErrorOf({{"training", {{"local_steps", 0}}}}), "training.local_steps");
    EXPECT_PRED2(startsWith,
                 ErrorOf({{"training", {{"lr_schedule", {{"type", "linear"}}}}}}),
                 "training.lr_schedule.type");
}

TEST(LearningKeys, ModelRecordsItsTypesDefaults)
{
    ScenarioConfig config = ToConfig(With({{"model", {{"type", "mlp"}}}}));
    EXPECT_EQ(config.modelType, "mlp");
    EXPECT_EQ(config.model, json({{"type", "mlp"}, {"hidden", {200, 200}}}));
    EXPECT_EQ(config.resolved["model"], config.model);

    config = ToConfig(With({{"model", {{"type", "mlp"}, {"hidden", {64}}}}}));
    EXPECT_EQ(config.model, json({{"type", "mlp"}, {"hidden", {64}}}));

    config = ToConfig(With({{"model", {{"type", "cnn"}, {"channels", {8, 16}}}}}));
    EXPECT_EQ(config.model, json({{"type", "cnn"}, {"channels", {8, 16}}, {"hidden", 128}}));
}

TEST(LearningKeys, ModelParametersTheTypeDoesNotTakeAreRejected)
{
    EXPECT_EQ(ErrorOf({{"model", {{"type", "softmax"}, {"hidden", {10}}}}}),
              "model.hidden: unknown key");
    EXPECT_EQ(ErrorOf({{"model", {{"type", "mlp"}, {"channels", {4, 4}}}}}),
              "model.channels: unknown key");
    // The schema allows a list or a number for "hidden"; each type takes only one of them.
    EXPECT_EQ(ErrorOf({{"model", {{"type", "cnn"}, {"hidden", {10}}}}}).rfind("model.hidden: ", 0),
              0u);
    EXPECT_EQ(ErrorOf({{"model", {{"type", "mlp"}, {"hidden", 10}}}}).rfind("model.hidden: ", 0),
              0u);
    EXPECT_EQ(ErrorOf({{"model", {{"type", "cnn"}, {"channels", {4, 4, 4}}}}}),
              "model.channels: must list two channel counts (conv1, conv2)");
    EXPECT_EQ(
        ErrorOf({{"model", {{"type", "mlp"}, {"hidden", {10, 0}}}}}).rfind("model.hidden.1: ", 0),
        0u);
}

TEST(LearningKeys, PartitionKeysReachTheConfig)
{
    ScenarioConfig config =
        ToConfig(With({{"data", {{"partition", {{"type", "shards"}, {"shards_per_client", 3}}}}}}));
    EXPECT_EQ(config.data.partition, "shards");
    EXPECT_EQ(config.data.shardsPerClient, 3u);

    config = ToConfig(
        With({{"data",
               {{"partition",
                 {{"min_samples", 50}, {"sizes", {{"type", "lognormal"}, {"sigma", 1.5}}}}}}}}));
    EXPECT_EQ(config.data.partition, "iid");
    EXPECT_EQ(config.data.minSamples, 50u);
    EXPECT_EQ(config.data.sizes.kind, SizeSpec::Kind::Lognormal);
    EXPECT_DOUBLE_EQ(config.data.sizes.sigma, 1.5);
}

TEST(LearningKeys, QuantitySkewOnlyWithIid)
{
    EXPECT_EQ(
        ErrorOf({{"data",
                  {{"partition", {{"type", "dirichlet"}, {"sizes", {{"type", "lognormal"}}}}}}}}),
        "data.partition.sizes.type: \"lognormal\" quantity skew needs partition type "
        "\"iid\" (dirichlet sets the client sizes itself)");
}

TEST(LearningKeys, CsvOptionsReachTheLoaderOptions)
{
    ScenarioConfig config = ToConfig(With({{"data",
                                            {{"dataset", "csv"},
                                             {"csv",
                                              {{"train", "a.csv"},
                                               {"test", "b.csv"},
                                               {"label", "species"},
                                               {"header", "yes"},
                                               {"separator", ";"},
                                               {"scaling", "divide"},
                                               {"divisor", 16}}}}}}));
    EXPECT_EQ(config.data.csvTrain, "a.csv");
    EXPECT_EQ(config.data.csvTest, "b.csv");
    EXPECT_EQ(config.data.csv.labelName, "species");
    EXPECT_EQ(config.data.csv.header, CsvOptions::Header::Yes);
    EXPECT_EQ(config.data.csv.separator, ';');
    EXPECT_EQ(config.data.csv.scaling, CsvOptions::Scaling::Divide);
    EXPECT_DOUBLE_EQ(config.data.csv.divisor, 16.0);
    EXPECT_EQ(config.resolved["data"]["csv"]["label"], "species");

    config = ToConfig(With(
        {{"data",
          {{"dataset", "csv"},
           {"csv",
            {{"train", "a.csv"}, {"test", "b.csv"}, {"label", -1}, {"scaling", "minmax"}}}}}}));
    EXPECT_TRUE(config.data.csv.labelName.empty());
    EXPECT_EQ(config.data.csv.labelIndex, -1);
    EXPECT_EQ(config.data.csv.header, CsvOptions::Header::Auto);
    EXPECT_EQ(config.data.csv.separator, ',');
    EXPECT_EQ(config.data.csv.scaling, CsvOptions::Scaling::MinMax);
}

TEST(LearningKeys, CsvDatasetNeedsItsFiles)
{
    EXPECT_EQ(ErrorOf({{"data", {{"dataset", "csv"}}}}),
              "data.csv: required with dataset \"csv\" (the train and test files)");
    EXPECT_EQ(ErrorOf({{"data", {{"dataset", "csv"}, {"csv", {{"train", "a.csv"}}}}}}),
              "data.csv.test: missing required key");
    EXPECT_EQ(ErrorOf({{"data",
                        {{"dataset", "csv"},
                         {"csv", {{"train", "a"}, {"test", "b"}, {"separator", "::"}}}}}}),
              "data.csv.separator: \"::\" must be one character");
    EXPECT_EQ(
        ErrorOf({{"data",
                  {{"dataset", "csv"}, {"csv", {{"train", "a"}, {"test", "b"}, {"label", 1.5}}}}}})
            .rfind("data.csv.label: ", 0),
        0u);
}

TEST(LearningKeys, SyntheticKeysReachTheGeneratorSettings)
{
    const ScenarioConfig config =
        ToConfig(With({{"data",
                        {{"dataset", "synthetic"},
                         {"synthetic",
                          {{"alpha", 0.5},
                           {"beta", 2},
                           {"features", 20},
                           {"classes", 5},
                           {"test_fraction", 0.2},
                           {"generate", "on_demand"},
                           {"test_clients", 300},
                           {"samples", {{"type", "equal"}, {"base", 80}}}}}}}}));
    const ScenarioConfig::Data::Synthetic& s = config.data.synthetic;
    EXPECT_DOUBLE_EQ(s.alpha, 0.5);
    EXPECT_DOUBLE_EQ(s.beta, 2.0);
    EXPECT_EQ(s.features, 20u);
    EXPECT_EQ(s.classes, 5u);
    EXPECT_DOUBLE_EQ(s.testFraction, 0.2);
    EXPECT_EQ(s.samples.kind, SizeSpec::Kind::Equal);
    EXPECT_EQ(s.samples.base, 80u);
    EXPECT_TRUE(s.onDemand);
    EXPECT_EQ(s.testClients, 300u);
    // Recorded with its defaults, since it is used.
    EXPECT_EQ(config.resolved["data"]["synthetic"]["samples"]["mu"], 4);

    const ScenarioConfig leaf = ToConfig(With({{"data", {{"dataset", "synthetic"}}}}));
    EXPECT_EQ(leaf.data.synthetic.samples.kind, SizeSpec::Kind::Lognormal);
    EXPECT_DOUBLE_EQ(leaf.data.synthetic.samples.mu, 4.0);
    EXPECT_DOUBLE_EQ(leaf.data.synthetic.samples.sigma, 2.0);
    EXPECT_EQ(leaf.data.synthetic.samples.base, 50u);
    EXPECT_EQ(leaf.data.synthetic.features, 60u);
    EXPECT_FALSE(leaf.data.synthetic.onDemand);
}

TEST(LearningKeys, SyntheticDataIsNotPartitionedAgain)
{
    const std::string expected =
        "data.partition: dataset \"synthetic\" is generated per client (sizes from "
        "data.synthetic.samples), so the partition must stay type \"iid\" with equal sizes";
    EXPECT_EQ(ErrorOf({{"data", {{"dataset", "synthetic"}, {"partition", {{"type", "shards"}}}}}}),
              expected);
    EXPECT_EQ(ErrorOf({{"data",
                        {{"dataset", "synthetic"},
                         {"partition", {{"sizes", {{"type", "lognormal"}}}}}}}}),
              expected);
    EXPECT_EQ(ErrorOf({{"data", {{"synthetic", {{"classes", 300}}}}}})
                  .rfind("data.synthetic.classes: ", 0),
              0u);
}

} // namespace
} // namespace fedran
