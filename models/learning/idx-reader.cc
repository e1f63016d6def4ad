#include "models/learning/idx-reader.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>
#include <zlib.h>

namespace fedran
{

namespace
{

constexpr uint32_t kImagesMagic = 0x00000803; // u8 data, 3 dimensions
constexpr uint32_t kLabelsMagic = 0x00000801; // u8 data, 1 dimension
/// Labels and pixels are read chunk by chunk so that a header announcing far more data than the
/// file holds fails on the short read instead of on a giant allocation.
constexpr size_t kChunkBytes = 1 << 20;
/// Largest pixel buffer reserved up front (64 Mi floats; Fashion-MNIST's training set is 47 Mi).
constexpr uint64_t kReserveCap = uint64_t{1} << 26;

/// A gzFile that knows its name and how far it has read, for error messages.
class IdxStream
{
  public:
    explicit IdxStream(const std::string& path)
        : m_path(path)
    {
        errno = 0;
        m_file = gzopen(path.c_str(), "rb");
        if (m_file == nullptr)
        {
            const char* reason = errno != 0 ? std::strerror(errno) : "out of memory";
            throw DataError("cannot open IDX file '" + path + "': " + reason);
        }
        // The default 8 KiB buffer makes the 47 MB image file noticeably slower to inflate.
        gzbuffer(m_file, 256 * 1024);
    }

    ~IdxStream()
    {
        gzclose(m_file);
    }

    IdxStream(const IdxStream&) = delete;
    IdxStream& operator=(const IdxStream&) = delete;

    /// Reads exactly `n` bytes or throws; `what` says what was being read.
    void ReadExact(void* buffer, size_t n, const char* what)
    {
        auto* out = static_cast<uint8_t*>(buffer);
        size_t done = 0;
        while (done < n)
        {
            // gzread takes an unsigned length; stay well inside it.
            const auto request = static_cast<unsigned>(std::min<size_t>(n - done, 1u << 30));
            const int got = gzread(m_file, out + done, request);
            if (got < 0)
            {
                int code = 0;
                const char* message = gzerror(m_file, &code);
                Fail(std::string("read error in ") + what + " (" + message + ")", done);
            }
            if (got == 0)
            {
                Fail(std::string("file truncated in ") + what + ": expected " + std::to_string(n) +
                         " bytes, got " + std::to_string(done),
                     done);
            }
            done += static_cast<size_t>(got);
        }
        m_offset += n;
    }

    uint32_t ReadBigEndianU32(const char* what)
    {
        std::array<uint8_t, 4> b{};
        ReadExact(b.data(), b.size(), what);
        return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) |
               uint32_t{b[3]};
    }

    /// Byte offset of the next read in the uncompressed stream.
    uint64_t Offset() const
    {
        return m_offset;
    }

    const std::string& Path() const
    {
        return m_path;
    }

    [[noreturn]] void Fail(const std::string& problem, uint64_t extra = 0) const
    {
        throw DataError("IDX file '" + m_path + "' at byte " + std::to_string(m_offset + extra) +
                        ": " + problem);
    }

  private:
    std::string m_path;
    gzFile m_file = nullptr;
    uint64_t m_offset = 0;
};

std::string
Hex(uint32_t v)
{
    char text[16];
    std::snprintf(text, sizeof(text), "0x%08x", v);
    return text;
}

void
ExpectMagic(IdxStream& in, uint32_t expected, const char* kind)
{
    const uint32_t magic = in.ReadBigEndianU32("the magic number");
    if (magic != expected)
    {
        // Report the offset of the magic number itself, not of the byte after it.
        throw DataError("IDX file '" + in.Path() + "' at byte 0: bad magic number " + Hex(magic) +
                        ", expected " + Hex(expected) + " (" + kind + ")");
    }
}

} // namespace

Dataset
LoadIdx(const std::string& imagesPath, const std::string& labelsPath)
{
    IdxStream images(imagesPath);
    ExpectMagic(images, kImagesMagic, "u8 images, 3 dimensions");
    const uint32_t imageCount = images.ReadBigEndianU32("the image count");
    const uint32_t rows = images.ReadBigEndianU32("the row count");
    const uint32_t cols = images.ReadBigEndianU32("the column count");
    const uint64_t features = uint64_t{rows} * cols;
    if (features == 0 || features > std::numeric_limits<uint32_t>::max())
    {
        throw DataError("IDX file '" + imagesPath + "' at byte 8: unusable image size " +
                        std::to_string(rows) + " x " + std::to_string(cols));
    }

    IdxStream labels(labelsPath);
    ExpectMagic(labels, kLabelsMagic, "u8 labels, 1 dimension");
    const uint32_t labelCount = labels.ReadBigEndianU32("the label count");
    if (labelCount != imageCount)
    {
        throw DataError("IDX file '" + labelsPath + "' at byte 4: holds " +
                        std::to_string(labelCount) + " labels but '" + imagesPath + "' holds " +
                        std::to_string(imageCount) + " images");
    }

    Dataset data;
    data.features = static_cast<uint32_t>(features);
    // Labels first: once they are all there, the example count is known to be real and the
    // pixel buffer can be reserved in one go.
    data.y.reserve(std::min<size_t>(labelCount, kChunkBytes));
    for (uint64_t done = 0; done < labelCount;)
    {
        const auto n = static_cast<size_t>(std::min<uint64_t>(labelCount - done, kChunkBytes));
        const size_t base = data.y.size();
        data.y.resize(base + n);
        labels.ReadExact(data.y.data() + base, n, "the labels");
        done += n;
    }
    const uint8_t maxLabel = data.y.empty() ? 0 : *std::max_element(data.y.begin(), data.y.end());
    data.classes = data.y.empty() ? 0 : uint32_t{maxLabel} + 1;

    std::array<float, 256> scale{};
    for (size_t v = 0; v < scale.size(); ++v)
    {
        scale[v] = static_cast<float>(v) / 255.0f;
    }
    const uint64_t totalBytes = uint64_t{imageCount} * features;
    // Rows x cols may still lie; beyond the cap the vector grows only as pixels arrive.
    data.x.reserve(static_cast<size_t>(std::min<uint64_t>(totalBytes, kReserveCap)));
    std::vector<uint8_t> chunk(static_cast<size_t>(std::min<uint64_t>(totalBytes, kChunkBytes)));
    for (uint64_t done = 0; done < totalBytes;)
    {
        const auto n = static_cast<size_t>(std::min<uint64_t>(totalBytes - done, kChunkBytes));
        images.ReadExact(chunk.data(), n, "the pixels");
        const size_t base = data.x.size();
        data.x.resize(base + n);
        std::transform(chunk.begin(),
                       chunk.begin() + static_cast<std::ptrdiff_t>(n),
                       data.x.begin() + static_cast<std::ptrdiff_t>(base),
                       [&scale](uint8_t v) { return scale[v]; });
        done += n;
    }
    return data;
}

namespace
{

std::string
FindIdxFile(const std::filesystem::path& dir, const std::string& name)
{
    const std::filesystem::path plain = dir / name;
    const std::filesystem::path gz = dir / (name + ".gz");
    std::error_code ec;
    if (std::filesystem::is_regular_file(plain, ec))
    {
        return plain.string();
    }
    if (std::filesystem::is_regular_file(gz, ec))
    {
        return gz.string();
    }
    throw DataError("IDX folder '" + dir.string() + "' has neither '" + name + "' nor '" + name +
                    ".gz'");
}

} // namespace

TrainTestData
LoadIdxFolder(const std::string& dir)
{
    const std::filesystem::path folder(dir);
    TrainTestData data;
    data.train = LoadIdx(FindIdxFile(folder, "train-images-idx3-ubyte"),
                         FindIdxFile(folder, "train-labels-idx1-ubyte"));
    data.test = LoadIdx(FindIdxFile(folder, "t10k-images-idx3-ubyte"),
                        FindIdxFile(folder, "t10k-labels-idx1-ubyte"));
    if (data.train.features != data.test.features)
    {
        throw DataError("IDX folder '" + dir + "': training images have " +
                        std::to_string(data.train.features) + " pixels but test images have " +
                        std::to_string(data.test.features));
    }
    const uint32_t classes = std::max(data.train.classes, data.test.classes);
    data.train.classes = classes;
    data.test.classes = classes;
    return data;
}

} // namespace fedran
