// `fedran codec`: encode/decode a float32 file with any codec; bad payloads exit 2 with the
// byte offset and write nothing.

#include "sim-test-util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>

namespace fedran::test
{
namespace
{

void
WriteFloats(const std::filesystem::path& path, const std::vector<float>& values)
{
    std::string bytes(values.size() * sizeof(float), '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size());
    WriteFile(path, bytes);
}

std::vector<float>
ReadFloats(const std::filesystem::path& path)
{
    const std::string bytes = ReadFile(path);
    std::vector<float> values(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
    return values;
}

class CodecCli : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        m_input.resize(1000);
        for (size_t i = 0; i < m_input.size(); ++i)
        {
            m_input[i] = std::sin(0.37f * i) * (1.0f + i % 7);
        }
        WriteFloats(m_dir.Path() / "x.f32", m_input);
    }

    TempDir m_dir{"codec-cli"};
    std::vector<float> m_input;
};

TEST_F(CodecCli, EncodeWritesPayloadAndDecodedThatDecodeReproduces)
{
    CommandResult r = RunFedran("codec --spec '{\"type\":\"fp16\"}' --input x.f32 --shape 100,10 "
                                "--payload p.bin --decoded d.f32",
                                m_dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_EQ(ReadFile(m_dir.Path() / "p.bin").size(), 8u + 2 * 1000);
    const std::vector<float> decoded = ReadFloats(m_dir.Path() / "d.f32");
    ASSERT_EQ(decoded.size(), m_input.size());
    for (size_t i = 0; i < decoded.size(); ++i)
    {
        EXPECT_NEAR(decoded[i], m_input[i], std::abs(m_input[i]) * 1e-3 + 1e-6);
    }

    r = RunFedran("codec --decode --spec '{\"type\":\"fp16\"}' --payload p.bin --shape 100,10 "
                  "--decoded again.f32",
                  m_dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    EXPECT_EQ(ReadFile(m_dir.Path() / "again.f32"), ReadFile(m_dir.Path() / "d.f32"));
}

TEST_F(CodecCli, TruncatedPayloadExitsTwoWithTheOffsetAndWritesNothing)
{
    ASSERT_EQ(
        RunFedran("codec --spec '{\"type\":\"none\"}' --input x.f32 --payload p.bin", m_dir.Path())
            .exitCode,
        0);
    std::string payload = ReadFile(m_dir.Path() / "p.bin");
    WriteFile(m_dir.Path() / "cut.bin", payload.substr(0, payload.size() - 5));
    CommandResult r = RunFedran("codec --decode --spec '{\"type\":\"none\"}' --payload cut.bin "
                                "--shape 1000 --decoded out.f32",
                                m_dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("offset"), std::string::npos) << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(m_dir.Path() / "out.f32"));
}

TEST_F(CodecCli, PayloadOfAnotherShapeIsRejected)
{
    ASSERT_EQ(
        RunFedran("codec --spec '{\"type\":\"none\"}' --input x.f32 --payload p.bin", m_dir.Path())
            .exitCode,
        0);
    // The layout signature in the payload names 1000 elements, not 500 x 2.
    CommandResult r = RunFedran("codec --decode --spec '{\"type\":\"none\"}' --payload p.bin "
                                "--shape 500,2 --decoded out.f32",
                                m_dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("offset 0"), std::string::npos) << r.stderrText;
}

TEST_F(CodecCli, PowerSgdRunsOneClientsTwoExchangeRound)
{
    // 100 x 10 at rank 2: first payload 12 + 4 * 100 * 2, reply 12 + 4 * 10 * 2 bytes; the
    // server sent a seed (12 + 8) and P_hat (12 + 4 * 100 * 2).
    CommandResult r = RunFedran("codec --spec '{\"type\":\"power_sgd\",\"rank\":2}' "
                                "--input x.f32 --shape 100,10 --decoded d.f32",
                                m_dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const nlohmann::json report = nlohmann::json::parse(r.stdoutText);
    EXPECT_EQ(report["payload_bytes"], 12 + 800 + 12 + 80);
    EXPECT_EQ(report["server_bytes"], 12 + 8 + 12 + 800);
    // A rank-2 projection of a rank-10 matrix: smaller than the input, not exact.
    EXPECT_GT(report["relative_l2_error"].get<double>(), 0.01);
    EXPECT_LT(report["relative_l2_error"].get<double>(), 1.0);
    EXPECT_EQ(ReadFloats(m_dir.Path() / "d.f32").size(), 1000u);

    r = RunFedran("codec --decode --spec '{\"type\":\"power_sgd\"}' --payload d.f32 "
                  "--shape 100,10 --decoded out.f32",
                  m_dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("two-exchange"), std::string::npos) << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(m_dir.Path() / "out.f32"));
}

TEST_F(CodecCli, BadOptionsExitTwo)
{
    EXPECT_EQ(RunFedran("codec --spec '{\"type\":\"zip\"}' --input x.f32", m_dir.Path()).exitCode,
              2);
    EXPECT_EQ(RunFedran("codec --spec 'not json' --input x.f32", m_dir.Path()).exitCode, 2);
    EXPECT_EQ(
        RunFedran("codec --spec '{\"type\":\"none\"}' --input missing.f32", m_dir.Path()).exitCode,
        2);
    EXPECT_EQ(
        RunFedran("codec --spec '{\"type\":\"none\"}' --input x.f32 --shape 3,3", m_dir.Path())
            .exitCode,
        2);
    EXPECT_EQ(RunFedran("codec --decode --spec '{\"type\":\"none\"}' --payload x.f32 "
                        "--decoded o.f32",
                        m_dir.Path())
                  .exitCode,
              2);
}

} // namespace
} // namespace fedran::test
