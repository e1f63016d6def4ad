// Centralised training of each model on the full Fashion-MNIST (60,000 training images, test
// on the 10,000 test images): the accuracy each model reaches when one client holds all the
// data, the ceiling that federated runs are compared against. Slow (tens of seconds to minutes),
// so every test name starts with "Slow" for ctest to label and --gtest_filter=-*Slow* to skip.
// Skipped when the dataset (Debian package dataset-fashion-mnist) is not installed.
//
// Each run: TrainLocal with batch 32 over every training image for `epochs` epochs at `lr`,
// then `annealEpochs` more at lr / 10. The last-iterate accuracy of constant-rate SGD wanders
// by about +-0.5% from epoch to epoch; the short low-rate tail settles it, so the asserted
// floors hold with a margin instead of depending on where the last epoch happened to land.
// The seeds are fixed, so a run is deterministic for a given Gemm kernel (see gemm.h).

#include "models/learning/idx-reader.h"
#include "models/learning/local-trainer.h"
#include "models/learning/model.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <numeric>
#include <vector>

namespace fedran
{
namespace
{

constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

struct Schedule
{
    double lr;
    uint32_t epochs;
    uint32_t annealEpochs;
};

const TrainTestData&
FashionMnist()
{
    static const TrainTestData data = LoadIdxFolder(kFashionMnistDir);
    return data;
}

/// Trains `spec` centrally under `schedule`; prints each epoch's test accuracy and returns the
/// final one.
double
TrainCentrally(const nlohmann::json& spec, const Schedule& schedule)
{
    const TrainTestData& data = FashionMnist();
    const auto model = MakeModel(spec, data.train.features, data.train.classes);
    std::vector<float> params(model->Layout().TotalSize());
    Rng init(1);
    model->InitParams(params, init);
    std::vector<uint32_t> all(data.train.Size());
    std::iota(all.begin(), all.end(), 0u);

    Rng rng(2);
    TrainingConfig config;
    config.localEpochs = 1;
    config.batchSize = 32;
    double accuracy = 0.0;
    const auto start = std::chrono::steady_clock::now();
    for (uint32_t epoch = 1; epoch <= schedule.epochs + schedule.annealEpochs; ++epoch)
    {
        config.lr = epoch <= schedule.epochs ? schedule.lr : schedule.lr / 10;
        const TrainingResult result = TrainLocal(*model, params, data.train, all, config, rng);
        for (size_t k = 0; k < params.size(); ++k)
        {
            params[k] += result.update[k];
        }
        const Evaluation test = model->Evaluate(params, data.test);
        accuracy = test.accuracy;
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        std::printf("  %s epoch %u (lr %g): train loss %.4f, test loss %.4f, test accuracy "
                    "%.4f, %.1f s\n",
                    spec.dump().c_str(),
                    epoch,
                    config.lr,
                    result.meanLoss,
                    test.loss,
                    test.accuracy,
                    elapsed.count());
    }
    return accuracy;
}

class CentralisedAccuracy : public testing::Test
{
  protected:
    void SetUp() override
    {
        if (!std::filesystem::is_directory(kFashionMnistDir))
        {
            GTEST_SKIP() << kFashionMnistDir << " is not installed";
        }
    }
};

TEST_F(CentralisedAccuracy, SlowSoftmaxReaches83Percent)
{
    EXPECT_GE(TrainCentrally({{"type", "softmax"}}, {0.05, 3, 1}), 0.83);
}

TEST_F(CentralisedAccuracy, SlowMlpReaches87Percent)
{
    EXPECT_GE(TrainCentrally({{"type", "mlp"}, {"hidden", {200, 200}}}, {0.1, 3, 1}), 0.87);
}

TEST_F(CentralisedAccuracy, SlowCnnReaches89Percent)
{
    EXPECT_GE(TrainCentrally({{"type", "cnn"}}, {0.05, 3, 1}), 0.89);
}

} // namespace
} // namespace fedran
