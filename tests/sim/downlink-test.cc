// Downlink compression: the global model (or each client's difference to it) crosses the
// network encoded, and clients train from what they decode.

#include "models/fl/update-frame.h"
#include "sim-test-util.h"

#include <gtest/gtest.h>

namespace fedran::test
{
namespace
{

double
FinalAccuracy(const std::filesystem::path& run)
{
    return std::stod(ReadCsv(run / "rounds.csv").back()["test_accuracy"]);
}

TEST(Downlink, ClientViewWithFp16SendsHalfTheBytesAndLearnsAsWell)
{
    TempDir dir("downlink");
    WriteFile(dir.Path() / "s.json", TinyScenario(4, 2, 3).dump());
    ASSERT_EQ(RunFedran("run s.json --out plain --quiet", dir.Path()).exitCode, 0);
    CommandResult r = RunFedran("run s.json --out view --quiet "
                                "--set compression.downlink_reference=client_view "
                                "--set 'compression.downlink={\"type\":\"fp16\"}'",
                                dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;

    for (auto& row : ReadCsv(dir.Path() / "view" / "clients.csv"))
    {
        EXPECT_EQ(std::stoull(row["downlink_payload_bytes"]), kFrameHeaderSize + 8 + 2 * 7850);
    }
    // fp16 of the difference, with the rounding error carried to the next transfer.
    EXPECT_NEAR(FinalAccuracy(dir.Path() / "view"), FinalAccuracy(dir.Path() / "plain"), 0.01);
}

} // namespace
} // namespace fedran::test
