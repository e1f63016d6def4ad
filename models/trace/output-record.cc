#include "models/trace/output-record.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace fedran
{

std::string
OsError(const std::string& what, const std::string& path)
{
    return what + " " + path + ": " + std::strerror(errno);
}

/// Writes all of `text` to `fd`; throws naming `path` and the OS error.
void
WriteAll(int fd, const std::string& text, const std::string& path)
{
    size_t done = 0;
    while (done < text.size())
    {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR)
        {
            continue;
        }
        if (n <= 0)
        {
            if (n == 0)
            {
                errno = EIO;
            }
            throw std::runtime_error(OsError("cannot write", path));
        }
        done += static_cast<size_t>(n);
    }
}

std::vector<std::string>
RecordedOutputFiles(const std::string& outDir)
{
    std::ifstream in(outDir + "/" + kOutputRecordFile, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(text, line))
    {
        if (!line.empty())
        {
            lines.push_back(line);
        }
    }
    return lines;
}

void
RecordOutputFile(const std::string& outDir, const std::string& name)
{
    const std::string record = outDir + "/" + kOutputRecordFile;
    for (const std::string& line : RecordedOutputFiles(outDir))
    {
        if (line == name)
        {
            return;
        }
    }
    const int fd = ::open(record.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
    {
        throw std::runtime_error(OsError("cannot write", record));
    }
    try
    {
        WriteAll(fd, name + "\n", record);
        if (::fsync(fd) != 0)
        {
            throw std::runtime_error(OsError("cannot sync", record));
        }
    }
    catch (...)
    {
        ::close(fd);
        throw;
    }
    ::close(fd);
}

} // namespace fedran
