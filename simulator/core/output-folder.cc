#include "simulator/core/output-folder.h"

#include "models/trace/output-record.h"
#include "models/trace/trace-schema.h"
#include "simulator/core/cli-error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fedran
{

namespace
{

namespace fs = std::filesystem;

std::string
ReadText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The files a run folder made before fedran kept outputs.txt can hold: every trace, run.json
/// and the default names of the plot scripts' figures.
std::vector<std::string>
KnownOutputNames()
{
    std::vector<std::string> names = {"run.json",
                                      "run.json.tmp",
                                      "flowmon.xml",
                                      "accuracy.png",
                                      "accuracy.svg",
                                      "controller.png",
                                      "timeline.png"};
    for (const TraceFile& trace : TraceFiles())
    {
        names.push_back(trace.file);
    }
    for (const char* stem : {"accuracy-vs-uplink",
                             "accuracy-vs-time",
                             "accuracy-vs-round",
                             "client-traffic",
                             "links",
                             "hub-links",
                             "controller"})
    {
        for (const char* format : {".png", ".pdf", ".svg"})
        {
            names.push_back(std::string("plots/") + stem + format);
        }
    }
    return names;
}

/// A recorded name fedran may remove: relative, inside the folder, no "..".
bool
SafeName(const std::string& name)
{
    const fs::path path(name);
    if (name.empty() || path.is_absolute())
    {
        return false;
    }
    for (const fs::path& part : path)
    {
        if (part == ".." || part == ".")
        {
            return false;
        }
    }
    return true;
}

std::string
HostName()
{
    char host[256] = {};
    if (::gethostname(host, sizeof(host) - 1) != 0)
    {
        return "unknown-host";
    }
    return host;
}

/// "pid 123 on host x" from a lock file's "<pid> <host>".
std::string
HolderText(const std::string& lockText)
{
    std::stringstream in(lockText);
    std::string pid;
    std::string host;
    in >> pid >> host;
    return pid.empty() ? "another process" : "pid " + pid + " on host " + host;
}

} // namespace

void
RemoveRecordedOutputs(const std::string& dir, const std::vector<std::string>& keep)
{
    const std::string record = dir + "/" + kOutputRecordFile;
    std::error_code ec;
    std::vector<std::string> names;
    if (fs::exists(record, ec))
    {
        names = RecordedOutputFiles(dir);
    }
    else if (fs::exists(dir + "/run.json", ec))
    {
        names = KnownOutputNames();
    }
    std::set<fs::path> parents;
    std::vector<std::string> kept;
    for (const std::string& name : names)
    {
        if (!SafeName(name))
        {
            continue;
        }
        if (std::find(keep.begin(), keep.end(), name) != keep.end())
        {
            kept.push_back(name);
            continue;
        }
        const fs::path path = fs::path(dir) / name;
        // Regular files only, never through a symbolic link: fedran writes nothing else.
        if (fs::is_regular_file(fs::symlink_status(path, ec)))
        {
            fs::remove(path, ec);
        }
        for (fs::path parent = fs::path(name).parent_path(); !parent.empty();
             parent = parent.parent_path())
        {
            parents.insert(parent);
        }
    }
    // Deepest first; a subfolder still holding someone's file stays.
    for (auto it = parents.rbegin(); it != parents.rend(); ++it)
    {
        const fs::path path = fs::path(dir) / *it;
        if (fs::is_directory(fs::symlink_status(path, ec)) && fs::is_empty(path, ec))
        {
            fs::remove(path, ec);
        }
    }
    fs::remove(record, ec);
    for (const std::string& name : kept)
    {
        RecordOutputFile(dir, name);
    }
}

OutputFolder::OutputFolder(const std::string& dir, bool overwrite)
    : m_dir(dir)
{
    std::error_code ec;
    m_created = !fs::exists(m_dir, ec);
    fs::create_directories(m_dir, ec);
    if (ec || !fs::is_directory(m_dir))
    {
        throw BadInput("output.dir: cannot create folder '" + m_dir +
                       "': " + (ec ? ec.message() : "not a folder"));
    }
    try
    {
        TakeLock();
        CheckPreviousRun(overwrite);
    }
    catch (...)
    {
        Release();
        throw;
    }
}

void
OutputFolder::TakeLock()
{
    const std::string path = m_dir + "/" + kLockFile;
    for (int attempt = 0; attempt < 100; ++attempt)
    {
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
        {
            throw BadInput(OsError("output.dir: cannot create the lock file", path));
        }
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0)
        {
            const int error = errno;
            ::close(fd);
            if (error == EWOULDBLOCK)
            {
                throw BadInput("output folder " + m_dir + " is in use by the run of " +
                               HolderText(ReadText(path)) + " (" + path +
                               "); wait for it to end or choose another --out");
            }
            errno = error;
            throw BadInput(OsError("output.dir: cannot lock", path));
        }
        // The holder may have removed the file between our open and flock: then the lock is
        // on a file nobody else will open, and we try again.
        struct stat opened
        {
        };
        struct stat named
        {
        };
        if (::fstat(fd, &opened) == 0 && ::stat(path.c_str(), &named) == 0 &&
            opened.st_ino == named.st_ino && opened.st_dev == named.st_dev)
        {
            m_lockFd = fd;
            break;
        }
        ::close(fd);
    }
    if (m_lockFd < 0)
    {
        throw BadInput("output.dir: cannot lock " + path + " (it keeps being replaced)");
    }
    const std::string previous = ReadText(path);
    if (!previous.empty())
    {
        // flock is released when its process dies, so a lock file we could lock belongs to
        // a run that was killed before it could remove it.
        std::fprintf(stderr,
                     "fedran: %s: taking over the stale lock of %s, which is no longer "
                     "running\n",
                     path.c_str(),
                     HolderText(previous).c_str());
    }
    const std::string text = std::to_string(::getpid()) + " " + HostName() + "\n";
    if (::ftruncate(m_lockFd, 0) != 0 || ::lseek(m_lockFd, 0, SEEK_SET) != 0)
    {
        throw BadInput(OsError("output.dir: cannot write", path));
    }
    WriteAll(m_lockFd, text, path);
}

void
OutputFolder::CheckPreviousRun(bool overwrite)
{
    const std::string manifestPath = m_dir + "/run.json";
    std::error_code ec;
    if (!fs::exists(manifestPath, ec))
    {
        return;
    }
    nlohmann::json manifest = nlohmann::json::parse(ReadText(manifestPath), nullptr, false);
    m_previousStatus =
        manifest.is_object() && manifest.contains("status") && manifest["status"].is_string()
            ? manifest["status"].get<std::string>()
            : "unreadable";
    if ((m_previousStatus == "completed" || m_previousStatus == "interrupted") && !overwrite)
    {
        throw BadInput("output folder " + m_dir + " holds a " + m_previousStatus +
                       " run (its run.json); fedran does not replace it: add --overwrite to "
                       "replace it (this removes the files that run and its plots wrote, and "
                       "nothing else), or choose another --out");
    }
}

void
OutputFolder::RemovePreviousRun()
{
    if (!m_previousStatus.empty())
    {
        const std::string what = m_previousStatus == "running"
                                     ? "a killed run (its run.json still says running)"
                                     : "a " + m_previousStatus + " run";
        std::fprintf(stderr,
                     "fedran: %s holds %s; replacing it (the files it recorded are removed)\n",
                     m_dir.c_str(),
                     what.c_str());
    }
    RemoveRecordedOutputs(m_dir);
}

void
OutputFolder::DiscardTraces(bool keepManifest)
{
    RemoveRecordedOutputs(m_dir,
                          keepManifest ? std::vector<std::string>{"run.json"}
                                       : std::vector<std::string>{});
}

OutputFolder::~OutputFolder()
{
    Release();
}

void
OutputFolder::Release()
{
    if (m_lockFd >= 0)
    {
        // Unlink while still holding the lock: a run waiting to open the file either sees it
        // locked or finds, after locking, that it is no longer the file of that name.
        ::unlink((m_dir + "/" + kLockFile).c_str());
        ::close(m_lockFd);
        m_lockFd = -1;
    }
    std::error_code ec;
    if (m_created && fs::is_empty(m_dir, ec))
    {
        fs::remove(m_dir, ec);
    }
}

} // namespace fedran
