#include "models/link-config/input-file.h"

#include "models/link-config/scenario-error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fedran
{

namespace
{

const char*
KindOf(mode_t mode)
{
    if (S_ISDIR(mode))
    {
        return "a directory";
    }
    if (S_ISFIFO(mode))
    {
        return "a FIFO";
    }
    if (S_ISCHR(mode))
    {
        return "a character device";
    }
    if (S_ISBLK(mode))
    {
        return "a block device";
    }
    if (S_ISSOCK(mode))
    {
        return "a socket";
    }
    return "a special file";
}

std::string
SizeText(uint64_t bytes)
{
    char text[32];
    if (bytes >= (1ull << 30))
    {
        std::snprintf(text, sizeof(text), "%.1f GiB", double(bytes) / double(1ull << 30));
    }
    else if (bytes >= (1ull << 20))
    {
        std::snprintf(text, sizeof(text), "%.1f MiB", double(bytes) / double(1ull << 20));
    }
    else
    {
        std::snprintf(text, sizeof(text), "%llu bytes", static_cast<unsigned long long>(bytes));
    }
    return text;
}

class Fd
{
  public:
    explicit Fd(int fd)
        : m_fd(fd)
    {
    }

    ~Fd()
    {
        if (m_fd >= 0)
        {
            ::close(m_fd);
        }
    }

    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;

    int Get() const
    {
        return m_fd;
    }

  private:
    int m_fd;
};

} // namespace

std::string
ReadInputFile(const std::string& path, uint64_t limit, const std::string& what)
{
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer; it has no
    // effect on the regular files that are read below.
    Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (fd.Get() < 0)
    {
        throw ScenarioError(path + ": cannot open (" + std::strerror(errno) + ")");
    }
    struct stat info
    {
    };
    if (::fstat(fd.Get(), &info) != 0)
    {
        throw ScenarioError(path + ": cannot read (" + std::strerror(errno) + ")");
    }
    if (!S_ISREG(info.st_mode))
    {
        throw ScenarioError(path + ": is " + KindOf(info.st_mode) + ", not a " + what);
    }
    const std::string limitText = "; a " + what + " is read up to " + SizeText(limit);
    if (static_cast<uint64_t>(info.st_size) > limit)
    {
        throw ScenarioError(path + ": is " + SizeText(static_cast<uint64_t>(info.st_size)) +
                            limitText);
    }
    // Read at most limit + 1 bytes whatever the size said: a file that grows while it is read
    // (or one whose size the filesystem does not report) still ends.
    std::string text;
    char buffer[1 << 16];
    while (true)
    {
        const ssize_t n = ::read(fd.Get(), buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR)
        {
            continue;
        }
        if (n < 0)
        {
            throw ScenarioError(path + ": cannot read (" + std::strerror(errno) + ")");
        }
        if (n == 0)
        {
            return text;
        }
        text.append(buffer, static_cast<size_t>(n));
        if (text.size() > limit)
        {
            throw ScenarioError(path + ": is larger than it said" + limitText);
        }
    }
}

} // namespace fedran
