// The real Fashion-MNIST files (Debian package dataset-fashion-mnist), when installed.

#include "models/learning/idx-reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

namespace fedran
{
namespace
{

constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

TEST(FashionMnist, LoadsTheInstalledDataset)
{
    if (!std::filesystem::is_directory(kFashionMnistDir))
    {
        GTEST_SKIP() << kFashionMnistDir << " is not installed";
    }
    const TrainTestData data = LoadIdxFolder(kFashionMnistDir);
    EXPECT_EQ(data.train.Size(), 60000u);
    EXPECT_EQ(data.test.Size(), 10000u);
    EXPECT_EQ(data.train.features, 784u);
    EXPECT_EQ(data.test.features, 784u);
    EXPECT_EQ(data.train.classes, 10u);
    EXPECT_EQ(data.test.classes, 10u);
    EXPECT_EQ(data.train.x.size(), 60000u * 784u);

    // Fashion-MNIST is balanced: 6000 training and 1000 test images per class.
    std::vector<size_t> trainCounts(10, 0);
    for (uint8_t label : data.train.y)
    {
        ++trainCounts[label];
    }
    std::vector<size_t> testCounts(10, 0);
    for (uint8_t label : data.test.y)
    {
        ++testCounts[label];
    }
    EXPECT_EQ(trainCounts, std::vector<size_t>(10, 6000));
    EXPECT_EQ(testCounts, std::vector<size_t>(10, 1000));
    const auto [lo, hi] = std::minmax_element(data.train.x.begin(), data.train.x.end());
    EXPECT_EQ(*lo, 0.0f);
    EXPECT_EQ(*hi, 1.0f);
}

} // namespace
} // namespace fedran
