// LoadCsv / LoadCsvPair on small CSV files the tests write themselves: header detection, label
// column by index and by name, separators, scaling, and errors that name file, line and column.

#include "models/learning/csv-reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fedran
{
namespace
{

namespace fs = std::filesystem;

class CsvReaderTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_dir = fs::temp_directory_path() /
                (std::string("fedran-csv-") + info->name() + "-" + std::to_string(::getpid()));
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
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }

    /// Expects LoadCsv to throw a DataError whose message contains every one of `needles`.
    static void ExpectDataError(const std::string& path,
                                const CsvOptions& options,
                                const std::vector<std::string>& needles)
    {
        try
        {
            LoadCsv(path, options);
            ADD_FAILURE() << "LoadCsv did not throw for " << path;
        }
        catch (const DataError& e)
        {
            for (const auto& needle : needles)
            {
                EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
                    << "missing '" << needle << "' in: " << e.what();
            }
        }
    }

    fs::path m_dir;
};

const std::string kWithHeader = "label,a,b\n3,1.5,2\n0,-1,+4e1\n";
const std::string kWithoutHeader = "3,1.5,2\n0,-1,+4e1\n";

void
ExpectTiny(const Dataset& data)
{
    EXPECT_EQ(data.Size(), 2u);
    EXPECT_EQ(data.features, 2u);
    EXPECT_EQ(data.classes, 4u); // largest label + 1
    EXPECT_EQ(data.y, (std::vector<uint8_t>{3, 0}));
    EXPECT_EQ(data.x, (std::vector<float>{1.5f, 2.0f, -1.0f, 40.0f}));
}

TEST_F(CsvReaderTest, ReadsWithAndWithoutHeader)
{
    CsvOptions options; // header auto, label column 0
    ExpectTiny(LoadCsv(Write("h.csv", kWithHeader), options));
    ExpectTiny(LoadCsv(Write("n.csv", kWithoutHeader), options));
    options.header = CsvOptions::Header::Yes;
    ExpectTiny(LoadCsv(Write("h2.csv", kWithHeader), options));
    options.header = CsvOptions::Header::No;
    ExpectTiny(LoadCsv(Write("n2.csv", kWithoutHeader), options));
}

TEST_F(CsvReaderTest, NumericHeaderNeedsHeaderYes)
{
    // Auto detection sees only numbers and reads the header as an example.
    const auto path = Write("numeric-header.csv", "0,1,2\n3,1.5,2\n0,-1,40\n");
    CsvOptions options;
    EXPECT_EQ(LoadCsv(path, options).Size(), 3u);
    options.header = CsvOptions::Header::Yes;
    ExpectTiny(LoadCsv(path, options));
}

TEST_F(CsvReaderTest, LabelColumnByNameAndByIndex)
{
    const auto path = Write("mid.csv", "a,\"label\",b\n1.5,3,2\n-1,0,40\n");
    CsvOptions byName;
    byName.labelName = "label";
    ExpectTiny(LoadCsv(path, byName));
    CsvOptions byIndex;
    byIndex.labelIndex = 1;
    ExpectTiny(LoadCsv(path, byIndex));
    CsvOptions fromEnd;
    fromEnd.labelIndex = -2;
    ExpectTiny(LoadCsv(path, fromEnd));

    const auto last = Write("last.csv", "1.5,2,3\n-1,40,0\n");
    CsvOptions lastColumn;
    lastColumn.labelIndex = -1;
    ExpectTiny(LoadCsv(last, lastColumn));
}

TEST_F(CsvReaderTest, SeparatorsSpacesCrlfBlankLinesAndByteOrderMark)
{
    CsvOptions options;
    options.separator = ';';
    ExpectTiny(
        LoadCsv(Write("semi.csv", "\xEF\xBB\xBFlabel ; a;b\r\n\r\n 3;1.5 ;\t2\r\n0;-1;40\r\n\n"),
                options));
    options.separator = '\t';
    ExpectTiny(LoadCsv(Write("tab.tsv", "3\t1.5\t2\n  \n0\t-1\t40"), options));
}

TEST_F(CsvReaderTest, DivideScalingMatchesTheIdxReader)
{
    CsvOptions options;
    options.scaling = CsvOptions::Scaling::Divide; // divisor 255 by default
    const Dataset data = LoadCsv(Write("px.csv", "1,0,255,51\n0,10,102,3\n"), options);
    const std::vector<int> pixels{0, 255, 51, 10, 102, 3};
    ASSERT_EQ(data.x.size(), pixels.size());
    for (size_t i = 0; i < pixels.size(); ++i)
    {
        EXPECT_EQ(data.x[i], static_cast<float>(pixels[i]) / 255.0f) << i; // as LoadIdx
    }
    options.divisor = 0.0;
    EXPECT_THROW(LoadCsv(Write("px2.csv", "1,0\n"), options), std::invalid_argument);
}

TEST_F(CsvReaderTest, MinMaxUsesTheTrainingRangesForTheTestFile)
{
    // Feature a spans 0..10 in training, b is constant.
    const auto train = Write("train.csv", "y,a,b\n0,0,7\n1,10,7\n0,5,7\n");
    const auto test = Write("test.csv", "y,a,b\n2,5,7\n1,20,8\n0,-10,7\n");
    CsvOptions options;
    options.scaling = CsvOptions::Scaling::MinMax;

    const Dataset own = LoadCsv(train, options);
    EXPECT_EQ(own.x, (std::vector<float>{0.0f, 0.0f, 1.0f, 0.0f, 0.5f, 0.0f}));

    const TrainTestData pair = LoadCsvPair(train, test, options);
    EXPECT_EQ(pair.train.x, own.x);
    // 5 -> 0.5 and 20 -> 2 and -10 -> -1 on the training range; b is constant there -> 0.
    EXPECT_EQ(pair.test.x, (std::vector<float>{0.5f, 0.0f, 2.0f, 0.0f, -1.0f, 0.0f}));
    EXPECT_EQ(pair.train.classes, 3u); // the test file's label 2 counts for both
    EXPECT_EQ(pair.test.classes, 3u);

    // The same by hand: fit on the unscaled training file, pass the ranges for the test file.
    CsvOptions raw;
    CsvOptions withRanges = options;
    withRanges.minMax = FitMinMax(LoadCsv(train, raw));
    EXPECT_EQ(LoadCsv(test, withRanges).x, pair.test.x);
    // Loaded on its own, the test file would use its own range instead.
    EXPECT_NE(LoadCsv(test, options).x, pair.test.x);
}

TEST_F(CsvReaderTest, PairWithDifferentFeatureCountsIsAnError)
{
    const auto train = Write("train.csv", "0,1,2\n");
    const auto test = Write("test3.csv", "0,1,2,3\n");
    try
    {
        LoadCsvPair(train, test, CsvOptions{});
        ADD_FAILURE() << "no DataError";
    }
    catch (const DataError& e)
    {
        EXPECT_NE(std::string(e.what()).find("test3.csv"), std::string::npos) << e.what();
    }
}

TEST_F(CsvReaderTest, MissingFileNamesThePath)
{
    ExpectDataError((m_dir / "no-such.csv").string(), CsvOptions{}, {"no-such.csv"});
}

TEST_F(CsvReaderTest, RaggedRowNamesLineAndColumn)
{
    // Line 4 has a cell too few (column 3 missing), line 5 one too many (column 4 extra).
    const auto shortRow = Write("short.csv", "label,a,b\n1,2,3\n\n4,5\n");
    ExpectDataError(shortRow, CsvOptions{}, {"short.csv", "line 4 column 3", "2 columns"});
    const auto longRow = Write("long.csv", "1,2,3\n4,5,6\n7,8,9,10\n");
    ExpectDataError(longRow, CsvOptions{}, {"long.csv", "line 3 column 4", "expected 3"});
}

TEST_F(CsvReaderTest, NonNumericCellNamesLineColumnAndHeader)
{
    const auto path = Write("bad.csv", "label,a,b\n1,2,3\n0,x7,3\n");
    ExpectDataError(path, CsvOptions{}, {"bad.csv", "line 3 column 2 ('a')", "'x7'"});
    const auto empty = Write("empty-cell.csv", "1,2,3\n0,,3\n");
    ExpectDataError(empty, CsvOptions{}, {"line 2 column 2", "empty cell"});
    const auto inf = Write("inf.csv", "1,2,inf\n");
    ExpectDataError(inf, CsvOptions{}, {"line 1 column 3", "not a finite float"});
    const auto huge = Write("huge.csv", "1,2,1e60\n");
    ExpectDataError(huge, CsvOptions{}, {"line 1 column 3", "not a finite float"});
    // Header No: a text first row is data, so it fails where it is.
    CsvOptions noHeader;
    noHeader.header = CsvOptions::Header::No;
    ExpectDataError(Write("text.csv", "label,a\n1,2\n"), noHeader, {"line 1 column 1"});
}

TEST_F(CsvReaderTest, BadLabelsNameLineAndColumn)
{
    CsvOptions lastColumn;
    lastColumn.labelIndex = -1;
    for (const std::string label : {"-1", "256", "2.5", "cat", "1e9"})
    {
        const auto path = Write("label.csv", "a,b,y\n1,2,3\n4,5," + label + "\n");
        ExpectDataError(path, lastColumn, {"label.csv", "line 3 column 3 ('y')", "bad label"});
    }
    // 255 and "7.0" are fine.
    const auto ok = Write("ok.csv", "1,2,255\n4,5,7.0\n");
    const Dataset data = LoadCsv(ok, lastColumn);
    EXPECT_EQ(data.y, (std::vector<uint8_t>{255, 7}));
    EXPECT_EQ(data.classes, 256u);
}

TEST_F(CsvReaderTest, UnknownLabelColumnIsAnError)
{
    CsvOptions byName;
    byName.labelName = "target";
    ExpectDataError(Write("names.csv", "label,a\n1,2\n"),
                    byName,
                    {"names.csv", "line 1", "'target'"});
    ExpectDataError(Write("plain.csv", "1,2\n"), byName, {"plain.csv", "no header row"});
    CsvOptions byIndex;
    byIndex.labelIndex = 2;
    ExpectDataError(Write("index.csv", "1,2\n"), byIndex, {"index.csv", "line 1", "index 2"});
    byIndex.labelIndex = -3;
    ExpectDataError(Write("index.csv", "1,2\n"), byIndex, {"index -3"});
}

TEST_F(CsvReaderTest, EmptyOrSingleColumnFilesAreErrors)
{
    ExpectDataError(Write("empty.csv", ""), CsvOptions{}, {"empty.csv", "no examples"});
    ExpectDataError(Write("header-only.csv", "label,a\n"), CsvOptions{}, {"no examples"});
    ExpectDataError(Write("one.csv", "\n\n1\n2\n"), CsvOptions{}, {"line 3", "separator"});
}

} // namespace
} // namespace fedran
