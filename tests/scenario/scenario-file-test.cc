// ReadScenarioFile: missing files, and syntax errors located by line and column.

#include "scenario-test-util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace fedran
{
namespace
{

using test::ScenarioErrorOf;

class ScenarioFileTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_dir = std::filesystem::temp_directory_path() /
                ("fedran-scenario-test-" + std::string(info->name()) + "-" +
                 std::to_string(::getpid()));
        std::filesystem::create_directories(m_dir);
    }

    void TearDown() override
    {
        std::filesystem::remove_all(m_dir);
    }

    std::string Write(const std::string& name, const std::string& text)
    {
        const std::string path = (m_dir / name).string();
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }

    std::filesystem::path m_dir;
};

TEST_F(ScenarioFileTest, ReadsQuickstart)
{
    const nlohmann::json scenario = test::Quickstart();
    EXPECT_EQ(scenario["name"], "quickstart");
    EXPECT_EQ(scenario["rounds"], 30);
}

TEST_F(ScenarioFileTest, MissingFileNamesTheFile)
{
    const std::string path = (m_dir / "absent.json").string();
    const std::string message = ScenarioErrorOf([&] { ReadScenarioFile(path); });
    EXPECT_EQ(message, path + ": cannot open (No such file or directory)");
}

TEST_F(ScenarioFileTest, DirectoryIsRefused)
{
    const std::string message = ScenarioErrorOf([&] { ReadScenarioFile(m_dir.string()); });
    EXPECT_EQ(message, m_dir.string() + ": is a directory, not a scenario file");
}

TEST_F(ScenarioFileTest, SyntaxErrorGivesLineAndColumn)
{
    // Missing comma after "bad": the parser notices on line 3, at the end of the next key.
    const std::string path = Write("bad.json", "{\n  \"name\": \"bad\"\n  \"rounds\": 3\n}\n");
    const std::string message = ScenarioErrorOf([&] { ReadScenarioFile(path); });
    EXPECT_EQ(message.rfind(path + ": line 3, column 10: syntax error", 0), 0u) << message;
    EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;
}

TEST_F(ScenarioFileTest, PositionsAgreeWithTheParser)
{
    // nlohmann's own "line L, column C" (in what()) must match ours for one-line errors.
    const std::string texts[] = {
        "{\"a\": tru}",
        "{\n\n   \"a\": [1, 2,, 3]}",
        "[1, 2\n,\n3 4]",
        "{\"a\": 1}\n\n  x",
        "{\"a\":\t@}",
    };
    int i = 0;
    for (const std::string& text : texts)
    {
        const std::string path =
            Write(std::string("p").append(std::to_string(i++)).append(".json"), text);
        std::string expected;
        try
        {
            const nlohmann::json parsed = nlohmann::json::parse(text);
            ADD_FAILURE() << "parsed: " << parsed.dump();
        }
        catch (const nlohmann::json::parse_error& e)
        {
            const std::string what = e.what();
            const size_t at = what.find("at line ");
            expected = what.substr(at + 3, what.find(':', at) - at - 3);
        }
        ASSERT_FALSE(expected.empty()) << text;
        const std::string message = ScenarioErrorOf([&] { ReadScenarioFile(path); });
        EXPECT_NE(message.find(expected), std::string::npos) << message << " vs " << expected;
    }
}

TEST_F(ScenarioFileTest, EmptyAndTruncatedFiles)
{
    const std::string empty = Write("empty.json", "");
    EXPECT_NE(ScenarioErrorOf([&] { ReadScenarioFile(empty); }).find(": line 1, column 1: "),
              std::string::npos);
    const std::string cut = Write("cut.json", "{\n  \"rounds\": 3,\n");
    const std::string message = ScenarioErrorOf([&] { ReadScenarioFile(cut); });
    EXPECT_NE(message.find(": line 3, column 1: "), std::string::npos) << message;
}

TEST_F(ScenarioFileTest, ValidJsonOfTheWrongShapeFailsValidationNotReading)
{
    const std::string path = Write("array.json", "[1, 2]");
    nlohmann::json scenario = ReadScenarioFile(path);
    EXPECT_EQ(test::ValidationErrorOf(scenario), "(root): expected object, got array");
}

} // namespace
} // namespace fedran
