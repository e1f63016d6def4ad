// LoadIdx / LoadIdxFolder on tiny IDX files the tests write themselves, plain and gzipped,
// including the malformed cases that must fail with a DataError naming the file.

#include "models/learning/idx-reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace fedran
{
namespace
{

namespace fs = std::filesystem;

void
PutU32(std::vector<uint8_t>& out, uint32_t v)
{
    out.push_back(static_cast<uint8_t>(v >> 24));
    out.push_back(static_cast<uint8_t>(v >> 16));
    out.push_back(static_cast<uint8_t>(v >> 8));
    out.push_back(static_cast<uint8_t>(v));
}

std::vector<uint8_t>
ImageFile(uint32_t count, uint32_t rows, uint32_t cols, const std::vector<uint8_t>& pixels)
{
    std::vector<uint8_t> out;
    PutU32(out, 0x00000803);
    PutU32(out, count);
    PutU32(out, rows);
    PutU32(out, cols);
    out.insert(out.end(), pixels.begin(), pixels.end());
    return out;
}

std::vector<uint8_t>
LabelFile(uint32_t count, const std::vector<uint8_t>& labels)
{
    std::vector<uint8_t> out;
    PutU32(out, 0x00000801);
    PutU32(out, count);
    out.insert(out.end(), labels.begin(), labels.end());
    return out;
}

class IdxReaderTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_dir = fs::temp_directory_path() /
                (std::string("fedran-idx-") + info->name() + "-" + std::to_string(::getpid()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }

    void TearDown() override
    {
        fs::remove_all(m_dir);
    }

    std::string Write(const std::string& name, const std::vector<uint8_t>& bytes, bool gzip)
    {
        const std::string path = (m_dir / name).string();
        if (gzip)
        {
            gzFile f = gzopen(path.c_str(), "wb");
            EXPECT_NE(f, nullptr);
            EXPECT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
                      static_cast<int>(bytes.size()));
            gzclose(f);
        }
        else
        {
            std::ofstream f(path, std::ios::binary);
            f.write(reinterpret_cast<const char*>(bytes.data()),
                    static_cast<std::streamsize>(bytes.size()));
        }
        return path;
    }

    /// Expects LoadIdx to throw a DataError mentioning `needle` (normally a file name).
    static void ExpectDataError(const std::string& images,
                                const std::string& labels,
                                const std::string& needle)
    {
        try
        {
            LoadIdx(images, labels);
            ADD_FAILURE() << "LoadIdx did not throw";
        }
        catch (const DataError& e)
        {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
                << "message: " << e.what();
        }
    }

    fs::path m_dir;
};

// Three 2x2 images with labels 2, 0, 4.
const std::vector<uint8_t> kPixels{0, 255, 51, 102, 10, 20, 30, 40, 255, 255, 0, 1};
const std::vector<uint8_t> kLabels{2, 0, 4};

void
ExpectTinyDataset(const Dataset& data)
{
    EXPECT_EQ(data.Size(), 3u);
    EXPECT_EQ(data.features, 4u);
    EXPECT_EQ(data.classes, 5u); // largest label + 1
    EXPECT_EQ(data.y, kLabels);
    ASSERT_EQ(data.x.size(), kPixels.size());
    for (size_t i = 0; i < kPixels.size(); ++i)
    {
        EXPECT_FLOAT_EQ(data.x[i], kPixels[i] / 255.0f) << "pixel " << i;
    }
    EXPECT_EQ(data.Row(1)[0], 10 / 255.0f);
    EXPECT_EQ(data.Row(2)[1], 1.0f);
}

TEST_F(IdxReaderTest, ReadsPlainFiles)
{
    const auto images = Write("img", ImageFile(3, 2, 2, kPixels), false);
    const auto labels = Write("lbl", LabelFile(3, kLabels), false);
    ExpectTinyDataset(LoadIdx(images, labels));
}

TEST_F(IdxReaderTest, ReadsGzippedFiles)
{
    const auto images = Write("img.gz", ImageFile(3, 2, 2, kPixels), true);
    const auto labels = Write("lbl.gz", LabelFile(3, kLabels), true);
    ExpectTinyDataset(LoadIdx(images, labels));
}

TEST_F(IdxReaderTest, MissingFileNamesThePath)
{
    const auto labels = Write("lbl", LabelFile(3, kLabels), false);
    ExpectDataError((m_dir / "no-such-images").string(), labels, "no-such-images");
    const auto images = Write("img", ImageFile(3, 2, 2, kPixels), false);
    ExpectDataError(images, (m_dir / "no-such-labels").string(), "no-such-labels");
}

TEST_F(IdxReaderTest, BadMagicNamesTheFile)
{
    auto swapped = Write("swapped-images", LabelFile(3, kLabels), false);
    const auto labels = Write("lbl", LabelFile(3, kLabels), false);
    ExpectDataError(swapped, labels, "swapped-images");
    ExpectDataError(swapped, labels, "bad magic");

    const auto images = Write("img.gz", ImageFile(3, 2, 2, kPixels), true);
    auto wrongLabels = Write("wrong-labels.gz", ImageFile(3, 2, 2, kPixels), true);
    ExpectDataError(images, wrongLabels, "wrong-labels.gz");
}

TEST_F(IdxReaderTest, TruncatedFileNamesTheFileAndOffset)
{
    auto bytes = ImageFile(3, 2, 2, kPixels);
    bytes.resize(bytes.size() - 3); // the last image loses three pixels
    const auto labels = Write("lbl", LabelFile(3, kLabels), false);
    const auto plain = Write("short-images", bytes, false);
    ExpectDataError(plain, labels, "short-images");
    ExpectDataError(plain, labels, "at byte 25"); // 16 header bytes + 9 pixels arrived
    const auto gz = Write("short-images.gz", bytes, true);
    ExpectDataError(gz, labels, "short-images.gz");

    // Labels cut inside the header.
    const auto images = Write("img", ImageFile(3, 2, 2, kPixels), false);
    const auto shortLabels = Write("short-labels", {0, 0, 8, 1, 0, 0}, false);
    ExpectDataError(images, shortLabels, "short-labels");
}

TEST_F(IdxReaderTest, TruncatedGzipStreamIsAnError)
{
    // A gzip file cut in its compressed data, not just an IDX file with too few bytes.
    const auto whole = Write("whole.gz", ImageFile(3, 2, 2, kPixels), true);
    std::ifstream in(whole, std::ios::binary);
    std::vector<char> gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    gz.resize(gz.size() - 12);
    const auto cut = Write("cut-images.gz", std::vector<uint8_t>(gz.begin(), gz.end()), false);
    const auto labels = Write("lbl", LabelFile(3, kLabels), false);
    ExpectDataError(cut, labels, "cut-images.gz");
}

TEST_F(IdxReaderTest, CountMismatchNamesTheLabelFile)
{
    const auto images = Write("img", ImageFile(3, 2, 2, kPixels), false);
    const auto labels = Write("two-labels", LabelFile(2, {2, 0}), false);
    ExpectDataError(images, labels, "two-labels");
    ExpectDataError(images, labels, "holds 2 labels");
}

TEST_F(IdxReaderTest, HeaderPromisingMoreThanTheFileHoldsFailsCleanly)
{
    // 4 billion images announced, 3 present: must fail on the short read, not allocate.
    const auto images = Write("liar", ImageFile(4000000000u, 28, 28, kPixels), false);
    const auto labels = Write("liar-labels", LabelFile(4000000000u, kLabels), false);
    ExpectDataError(images, labels, "liar-labels");
}

TEST_F(IdxReaderTest, FolderFindsPlainAndGzippedFiles)
{
    Write("train-images-idx3-ubyte.gz", ImageFile(3, 2, 2, kPixels), true);
    Write("train-labels-idx1-ubyte", LabelFile(3, kLabels), false);
    Write("t10k-images-idx3-ubyte", ImageFile(1, 2, 2, {1, 2, 3, 4}), false);
    Write("t10k-labels-idx1-ubyte.gz", LabelFile(1, {1}), true);
    const TrainTestData data = LoadIdxFolder(m_dir.string());
    ExpectTinyDataset(data.train);
    EXPECT_EQ(data.test.Size(), 1u);
    EXPECT_EQ(data.test.y[0], 1);
    EXPECT_FLOAT_EQ(data.test.x[3], 4 / 255.0f);
    // The test split only shows label 1, but shares the training split's class count.
    EXPECT_EQ(data.test.classes, 5u);
}

TEST_F(IdxReaderTest, FolderMissingFileNamesIt)
{
    Write("train-images-idx3-ubyte.gz", ImageFile(3, 2, 2, kPixels), true);
    Write("train-labels-idx1-ubyte", LabelFile(3, kLabels), false);
    Write("t10k-images-idx3-ubyte", ImageFile(1, 2, 2, {1, 2, 3, 4}), false);
    try
    {
        LoadIdxFolder(m_dir.string());
        ADD_FAILURE() << "LoadIdxFolder did not throw";
    }
    catch (const DataError& e)
    {
        EXPECT_NE(std::string(e.what()).find("t10k-labels-idx1-ubyte"), std::string::npos)
            << e.what();
    }
}

} // namespace
} // namespace fedran
