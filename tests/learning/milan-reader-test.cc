// ReadMilanFiles and ListMilanFiles on small files in the Milan layout written by the test:
// country codes summed, signals, missing values filled and counted, malformed lines named.

#include "models/learning/dataset.h"
#include "models/learning/milan-reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fedran
{
namespace
{

namespace fs = std::filesystem;

class MilanReaderTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        m_dir =
            fs::temp_directory_path() /
            ("fedran-milan-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }

    void TearDown() override
    {
        fs::remove_all(m_dir);
    }

    std::string Write(const std::string& name, const std::string& text)
    {
        const std::string path = (m_dir / name).string();
        std::ofstream(path) << text;
        return path;
    }

    fs::path m_dir;
};

constexpr int64_t kT0 = 1383260400000;
constexpr int64_t kStep = 600000;

std::string
Row(uint32_t square, int64_t stamp, const std::string& rest)
{
    return std::to_string(square) + "\t" + std::to_string(stamp) + "\t" + rest + "\n";
}

TEST_F(MilanReaderTest, SumsCountryCodesPicksSignalsAndFillsMissing)
{
    // Day one: square 2 has two country codes in interval 0; square 1 has nothing in
    // interval 1 (no row) and an empty internet field in interval 2.
    Write("sms-call-internet-mi-2013-11-01.txt",
          Row(2, kT0, "39\t1\t2\t3\t4\t10.5") + Row(2, kT0, "33\t0.5\t\t\t1\t4.5") +
              Row(1, kT0, "39\t\t\t\t\t7") + Row(1, kT0 + 2 * kStep, "39\t1\t1\t\t\t") +
              Row(2, kT0 + kStep, "39\t\t\t\t\t1") + Row(2, kT0 + 2 * kStep, "39\t\t\t\t\t2"));
    Write("sms-call-internet-mi-2013-11-02.txt", Row(1, kT0 + 3 * kStep, "0\t\t\t\t\t3\r"));
    Write("notes.txt", "not a data file\n");

    const std::vector<std::string> files = ListMilanFiles(m_dir.string());
    ASSERT_EQ(files.size(), 2u);
    EXPECT_NE(files[0].find("2013-11-01"), std::string::npos);

    const TrafficSeries internet = ReadMilanFiles(files, TrafficSignal::Internet);
    ASSERT_EQ(internet.cells, (std::vector<uint32_t>{1, 2}));
    ASSERT_EQ(internet.Steps(), 4u);
    EXPECT_EQ(internet.firstStampMs, kT0);
    EXPECT_EQ(internet.values[0], (std::vector<double>{7, 0, 0, 3}));
    EXPECT_EQ(internet.values[1], (std::vector<double>{15, 1, 2, 0}));
    // Square 1 steps 1 and 2 (2's internet field is empty), square 2 step 3.
    EXPECT_EQ(internet.missing, 3u);

    const TrafficSeries first = ReadMilanFiles(files, TrafficSignal::Internet, 1);
    EXPECT_EQ(first.cells, (std::vector<uint32_t>{1}));
    EXPECT_EQ(first.missing, 2u);

    const TrafficSeries sms = ReadMilanFiles(files, TrafficSignal::Sms);
    EXPECT_EQ(sms.values[1][0], 3.5);
    EXPECT_EQ(sms.values[0][2], 2.0);
    const TrafficSeries call = ReadMilanFiles(files, TrafficSignal::Call);
    EXPECT_EQ(call.values[1][0], 8.0);
    const TrafficSeries all = ReadMilanFiles(files, TrafficSignal::All);
    EXPECT_EQ(all.values[1][0], 1 + 2 + 3 + 4 + 10.5 + 0.5 + 1 + 4.5);
    EXPECT_EQ(ParseTrafficSignal("call"), TrafficSignal::Call);
    EXPECT_THROW(ParseTrafficSignal("voice"), std::invalid_argument);
}

void
ExpectErrorAt(const std::vector<std::string>& files,
              const std::string& where,
              const std::string& what)
{
    try
    {
        ReadMilanFiles(files, TrafficSignal::Internet);
        FAIL() << "no DataError for " << what;
    }
    catch (const DataError& e)
    {
        const std::string message = e.what();
        EXPECT_NE(message.find(where), std::string::npos) << message;
        EXPECT_NE(message.find(what), std::string::npos) << message;
    }
}

TEST_F(MilanReaderTest, MalformedLinesNameFileAndLine)
{
    const std::string good = Row(1, kT0, "39\t1\t1\t1\t1\t1");
    const std::string a = Write("a.txt", good + "\n" + Row(1, kT0, "39\t1\t1\t1\t1"));
    ExpectErrorAt({a}, a + ":3:", "7 tab-separated fields");
    const std::string b = Write("b.txt", good + Row(1, kT0, "39\t1\tx\t1\t1\t1"));
    ExpectErrorAt({b}, b + ":2:", "\"x\" is not a non-negative number");
    const std::string c =
        Write("c.txt", good + "1.5\t" + std::to_string(kT0) + "\t39\t1\t1\t1\t1\t1");
    ExpectErrorAt({c}, c + ":2:", "square id \"1.5\"");
    const std::string d = Write("d.txt", good + Row(1, kT0 + 1000, "39\t1\t1\t1\t1\t1"));
    ExpectErrorAt({d}, d + ":2:", "not a 10-minute step");
    const std::string e = Write("e.txt", good + Row(1, kT0, "39\t1\t1\t1\t1\t1\t9"));
    ExpectErrorAt({e}, e + ":2:", "more than 8");
    const std::string f = Write("f.txt", good + Row(1, kT0, "39\t1\t1\t1\t1\t-2"));
    ExpectErrorAt({f}, f + ":2:", "\"-2\"");
    const std::string empty = Write("empty.txt", "\n");
    EXPECT_THROW(ReadMilanFiles({empty}, TrafficSignal::Internet), DataError);
    EXPECT_THROW(ReadMilanFiles({(m_dir / "absent.txt").string()}, TrafficSignal::Internet),
                 DataError);
    EXPECT_THROW(ListMilanFiles((m_dir / "absent").string()), DataError);
    EXPECT_THROW(ListMilanFiles(m_dir.string()), DataError); // no Milan-named file
}

} // namespace
} // namespace fedran
