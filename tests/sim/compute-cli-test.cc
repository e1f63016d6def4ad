// Computation on the simulated clock through whole runs: an encode cost moves the upload by
// exactly that much (codec speed 2 halves it), `fedran calibrate` writes a profile that a
// scenario can name, and a malformed profile, or one without a price for the scenario's
// robust rule, is refused with exit status 2 naming the key.

#include "compression/cost-model.h"
#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace fedran::test
{
namespace
{

/// The reference profile with every cost zero but none's encode fixed_s.
nlohmann::json
ProfileWithEncode(double encodeS)
{
    nlohmann::json profile = CostProfile::Reference().ToJson();
    for (auto& [name, cost] : profile["codecs"].items())
    {
        for (auto& [part, linear] : cost.items())
        {
            for (auto& [term, value] : linear.items())
            {
                value = 0.0;
            }
        }
    }
    profile["codecs"]["none"]["encode"]["fixed_s"] = encodeS;
    profile["server"] = {{"fold_per_element_s", 0.0},
                         {"apply_per_element_s", 0.0},
                         {"flop_s", 0.0}};
    return profile;
}

std::vector<std::map<std::string, std::string>>
RunWith(const TempDir& dir, const std::string& name, double encodeS, double codecSpeed)
{
    WriteFile(dir.Path() / (name + ".profile.json"), ProfileWithEncode(encodeS).dump());
    nlohmann::json s = TinyScenario(2, 2, 1);
    s["clients"]["groups"][0]["compute"]["profile"] = name + ".profile.json";
    s["clients"]["groups"][0]["compute"]["codec_speed"] = codecSpeed;
    s["server"]["compute"] = {{"profile", name + ".profile.json"}};
    WriteFile(dir.Path() / (name + ".json"), s.dump());
    const CommandResult r =
        RunFedran("run " + name + ".json --out " + name + " --quiet", dir.Path());
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    return ReadCsv(dir.Path() / name / "clients.csv");
}

TEST(ComputeCli, AnEncodeCostMovesTheUploadByExactlyItAndCodecSpeedTwoHalvesIt)
{
    TempDir dir("encode-cost");
    const auto zero = RunWith(dir, "zero", 0.0, 1.0);
    const auto slow = RunWith(dir, "slow", 0.5, 1.0);
    const auto fast = RunWith(dir, "fast", 0.5, 2.0);
    ASSERT_EQ(zero.size(), 2u);
    ASSERT_EQ(slow.size(), 2u);
    ASSERT_EQ(fast.size(), 2u);
    for (size_t i = 0; i < zero.size(); ++i)
    {
        const double start = std::stod(zero[i].at("upload_start_s"));
        EXPECT_NEAR(std::stod(slow[i].at("upload_start_s")) - start, 0.5, 2e-6);
        EXPECT_NEAR(std::stod(fast[i].at("upload_start_s")) - start, 0.25, 2e-6);
        EXPECT_EQ(slow[i].at("encode_s"), "0.5");
        EXPECT_EQ(fast[i].at("encode_s"), "0.25");
        EXPECT_EQ(zero[i].at("compute_s"), slow[i].at("compute_s"));
    }
}

TEST(ComputeCli, CalibrateWritesAProfileTheValidatorAccepts)
{
    TempDir dir("calibrate");
    CommandResult r = RunFedran("calibrate --out p.json --scale 0.05", dir.Path());
    ASSERT_EQ(r.exitCode, 0) << r.stderrText;
    const nlohmann::json profile = nlohmann::json::parse(ReadFile(dir.Path() / "p.json"));
    EXPECT_NO_THROW(CostProfile::FromJson(profile));
    EXPECT_TRUE(profile.at("machine").contains("cpu"));
    nlohmann::json s = TinyScenario(2, 2, 1);
    s["clients"]["groups"][0]["compute"]["profile"] = "p.json";
    s["server"]["compute"] = {{"profile", "p.json"}};
    WriteFile(dir.Path() / "s.json", s.dump());
    r = RunFedran("validate s.json", dir.Path());
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
    // It prices every robust rule's combination too.
    s["server"]["robust"] = {{"type", "geometric_median"}};
    WriteFile(dir.Path() / "s.json", s.dump());
    r = RunFedran("validate s.json", dir.Path());
    EXPECT_EQ(r.exitCode, 0) << r.stderrText;
}

TEST(ComputeCli, ARobustRuleTheProfileDoesNotPriceExitsTwo)
{
    TempDir dir("unpriced-rule");
    WriteFile(dir.Path() / "p.json", ProfileWithEncode(0.0).dump()); // no server.rules
    nlohmann::json s = TinyScenario(2, 2, 1);
    s["server"]["compute"] = {{"profile", "p.json"}};
    s["server"]["robust"] = {{"type", "median"}};
    WriteFile(dir.Path() / "s.json", s.dump());
    const CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("server.compute.profile: has no server.rules.median"),
              std::string::npos)
        << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "out"));
}

TEST(ComputeCli, AMalformedProfileExitsTwoNamingTheKey)
{
    TempDir dir("bad-profile");
    nlohmann::json profile = ProfileWithEncode(0.0);
    profile["codecs"]["qsgd"]["decode"]["per_byte_s"] = "slow";
    WriteFile(dir.Path() / "p.json", profile.dump());
    nlohmann::json s = TinyScenario(2, 2, 1);
    s["server"]["compute"] = {{"profile", "p.json"}};
    WriteFile(dir.Path() / "s.json", s.dump());
    CommandResult r = RunFedran("run s.json --out out --quiet", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("server.compute.profile: p.json: codecs.qsgd.decode.per_byte_s"),
              std::string::npos)
        << r.stderrText;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() / "out"));
    WriteFile(dir.Path() / "p.json", "{\"format\": ");
    r = RunFedran("validate s.json", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("server.compute.profile: p.json: not JSON"), std::string::npos)
        << r.stderrText;
}

nlohmann::json
LayerwiseScenario(const nlohmann::json& uplink)
{
    nlohmann::json s = TinyScenario(2, 2, 2);
    s["model"] = {{"type", "mlp"}, {"hidden", {64}}};
    s["training"]["local_steps"] = 4;
    // A last step of 16 ms, whose backward pass outlasts the first bucket's encoding; with
    // 1 KiB buckets the output layer (650 floats) is a bucket of its own, the rest another.
    s["clients"]["groups"][0]["compute"]["samples_per_second"] = 2000;
    s["training"]["pipelining"] = {{"mode", "layerwise"}, {"bucket_bytes", 1024}};
    s["compression"] = {{"uplink", uplink}, {"downlink", {{"type", "none"}}}};
    return s;
}

TEST(ComputeCli, LayerwiseSendsTheFirstBucketBeforeTrainingEndsAndIsDeterministic)
{
    TempDir dir("layerwise");
    WriteFile(dir.Path() / "s.json",
              LayerwiseScenario(
                  {{"type", "error_feedback"}, {"base", {{"type", "top_k"}, {"ratio", 0.1}}}})
                  .dump());
    ASSERT_EQ(RunFedran("run s.json --out a --quiet --threads 1", dir.Path()).exitCode, 0);
    ASSERT_EQ(RunFedran("run s.json --out b --quiet --threads 2", dir.Path()).exitCode, 0);
    ExpectSameTraces(dir.Path() / "a", dir.Path() / "b");
    const auto rows = ReadCsv(dir.Path() / "a" / "clients.csv");
    ASSERT_EQ(rows.size(), 4u);
    for (const auto& row : rows)
    {
        EXPECT_EQ(row.at("status"), "completed");
        const double trainedAt =
            std::stod(row.at("model_received_s")) + std::stod(row.at("compute_s"));
        EXPECT_LT(std::stod(row.at("upload_start_s")), trainedAt);
        EXPECT_GT(std::stod(row.at("upload_end_s")), std::stod(row.at("upload_start_s")));
    }
}

TEST(ComputeCli, LayerwiseIsRefusedForACodecThatNeedsTheWholeUpdate)
{
    TempDir dir("layerwise-refused");
    WriteFile(dir.Path() / "s.json", LayerwiseScenario({{"type", "power_sgd"}}).dump());
    const CommandResult r = RunFedran("validate s.json", dir.Path());
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.stderrText.find("training.pipelining.mode: \"layerwise\" cannot split "
                                "compression.uplink \"power_sgd\""),
              std::string::npos)
        << r.stderrText;
}

} // namespace
} // namespace fedran::test
