// WritePartitionCsv: exact bytes for a tiny partition, quoting, and its errors.

#include "models/learning/partition-summary.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace fedran
{
namespace
{

namespace fs = std::filesystem;

std::string
ReadAll(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

fs::path
TempPath(const std::string& name)
{
    return fs::temp_directory_path() /
           ("fedran-summary-" + std::to_string(::getpid()) + "-" + name + ".csv");
}

TEST(PartitionSummary, WritesHeaderAndHistogramsExactly)
{
    const std::vector<std::vector<uint32_t>> partition{{0, 2, 3}, {1}, {}};
    const std::vector<uint8_t> labels{0, 1, 1, 2};
    const fs::path path = TempPath("exact");
    WritePartitionCsv(path.string(), partition, labels, 4, {"fast", "slow,far", "say \"hi\""});
    EXPECT_EQ(ReadAll(path),
              "client,group,samples,label_0,label_1,label_2,label_3\n"
              "0,fast,3,1,1,1,0\n"
              "1,\"slow,far\",1,0,1,0,0\n"
              "2,\"say \"\"hi\"\"\",0,0,0,0,0\n");
    fs::remove(path);
}

TEST(PartitionSummary, NoGroupsGivesEmptyGroupCells)
{
    const fs::path path = TempPath("nogroups");
    WritePartitionCsv(path.string(), {{1}, {0}}, std::vector<uint8_t>{1, 0}, 2, {});
    EXPECT_EQ(ReadAll(path), "client,group,samples,label_0,label_1\n0,,1,1,0\n1,,1,0,1\n");
    fs::remove(path);
}

TEST(PartitionSummary, ForecastingDataHasOnlySampleCounts)
{
    const fs::path path = TempPath("forecast");
    WritePartitionCsv(path.string(), {{0, 1, 2}, {3}}, std::vector<uint8_t>{}, 0, {"a", "b"});
    EXPECT_EQ(ReadAll(path), "client,group,samples\n0,a,3\n1,b,1\n");
    fs::remove(path);
}

TEST(PartitionSummary, UnwritablePathThrowsNamingIt)
{
    const std::string path = "/nonexistent-fedran-dir/summary.csv";
    try
    {
        WritePartitionCsv(path, {{0}}, std::vector<uint8_t>{0}, 1, {"g"});
        ADD_FAILURE() << "no exception";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
}

TEST(PartitionSummary, RejectsInconsistentInput)
{
    const std::string path = TempPath("bad").string();
    const std::vector<uint8_t> labels{0, 1, 2};
    EXPECT_THROW(WritePartitionCsv(path, {{0}, {1}}, labels, 3, {"only-one"}),
                 std::invalid_argument);
    EXPECT_THROW(WritePartitionCsv(path, {{3}}, labels, 3, {}), std::invalid_argument);
    EXPECT_THROW(WritePartitionCsv(path, {{2}}, labels, 2, {}), std::invalid_argument);
    EXPECT_FALSE(fs::exists(path)); // nothing half-written
}

} // namespace
} // namespace fedran
