// Per-round learning-rate schedules: the formulas, the names, and TrainLocal training at
// the rate of the round it is given.

#include "models/learning/dataset.h"
#include "models/learning/local-trainer.h"
#include "models/learning/softmax-model.h"
#include "trainer-test-util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace fedran::test
{
namespace
{

TEST(LocalTrainer, LearningRateSchedules)
{
    TrainingConfig config;
    config.lr = 0.1;
    EXPECT_DOUBLE_EQ(LearningRate(config, 1), 0.1);
    EXPECT_DOUBLE_EQ(LearningRate(config, 1000), 0.1);

    config.lrSchedule = LrSchedule::Step;
    config.lrDecay = 0.5;
    config.lrStepRounds = 3;
    EXPECT_DOUBLE_EQ(LearningRate(config, 1), 0.1);
    EXPECT_DOUBLE_EQ(LearningRate(config, 3), 0.1);
    EXPECT_DOUBLE_EQ(LearningRate(config, 4), 0.05);
    EXPECT_DOUBLE_EQ(LearningRate(config, 6), 0.05);
    EXPECT_DOUBLE_EQ(LearningRate(config, 7), 0.025);

    config.lrSchedule = LrSchedule::Exponential;
    config.lrDecay = 0.9;
    EXPECT_DOUBLE_EQ(LearningRate(config, 1), 0.1);
    EXPECT_DOUBLE_EQ(LearningRate(config, 2), 0.09);
    EXPECT_DOUBLE_EQ(LearningRate(config, 11), 0.1 * std::pow(0.9, 10));

    config.lrSchedule = LrSchedule::Cosine;
    config.totalRounds = 10;
    EXPECT_DOUBLE_EQ(LearningRate(config, 1), 0.1);
    EXPECT_NEAR(LearningRate(config, 6), 0.05, 1e-15); // halfway: cos(pi / 2) = 0
    EXPECT_NEAR(LearningRate(config, 10), 0.05 * (1 + std::cos(0.9 * std::numbers::pi)), 1e-15);
    EXPECT_NEAR(LearningRate(config, 11), 0.0, 1e-15);
    EXPECT_NEAR(LearningRate(config, 50), 0.0, 1e-15); // held at 0, not climbing back

    EXPECT_THROW(LearningRate(config, 0), std::invalid_argument);
    config.totalRounds = 0;
    EXPECT_THROW(LearningRate(config, 1), std::invalid_argument);
    config.lrSchedule = LrSchedule::Step;
    config.lrStepRounds = 0;
    EXPECT_THROW(LearningRate(config, 1), std::invalid_argument);
}

TEST(LocalTrainer, ScheduleNamesRoundTrip)
{
    for (LrSchedule s :
         {LrSchedule::Constant, LrSchedule::Step, LrSchedule::Exponential, LrSchedule::Cosine})
    {
        EXPECT_EQ(ParseLrSchedule(LrScheduleName(s)), s);
    }
    EXPECT_EQ(ParseLrSchedule("cosine"), LrSchedule::Cosine);
    EXPECT_THROW(ParseLrSchedule("linear"), std::invalid_argument);
}

TEST(LocalTrainer, TrainsAtTheRoundsLearningRate)
{
    const Dataset data = Blobs(64, 12);
    SoftmaxModel model(data.features, data.classes);
    const std::vector<float> start(model.Layout().TotalSize(), 0.0f);
    const auto indices = AllIndices(data);
    TrainingConfig scheduled;
    scheduled.batchSize = 8;
    scheduled.lr = 0.2;
    scheduled.lrSchedule = LrSchedule::Exponential;
    scheduled.lrDecay = 0.5;
    TrainingConfig constant = scheduled;
    constant.lrSchedule = LrSchedule::Constant;
    constant.lr = 0.1; // the schedule's round-2 rate

    Rng a(2);
    Rng b(2);
    const TrainingResult round2 = TrainLocal(model, start, data, indices, scheduled, 2, a);
    const TrainingResult fixed = TrainLocal(model, start, data, indices, constant, 7, b);
    EXPECT_TRUE(BitIdentical(round2.update, fixed.update));

    // The overload without a round is round 1, and refuses a schedule it cannot follow.
    Rng c(2);
    Rng d(2);
    const TrainingResult implicit = TrainLocal(model, start, data, indices, constant, c);
    const TrainingResult explicitRound = TrainLocal(model, start, data, indices, constant, 1, d);
    EXPECT_TRUE(BitIdentical(implicit.update, explicitRound.update));
    EXPECT_THROW(TrainLocal(model, start, data, indices, scheduled, c), std::invalid_argument);
}

} // namespace
} // namespace fedran::test
