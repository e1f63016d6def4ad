#ifndef FEDRAN_TESTS_SIM_SIM_TEST_UTIL_H
#define FEDRAN_TESTS_SIM_SIM_TEST_UTIL_H

// Shared pieces of the simulation tests: small scenarios, temporary folders, running the
// fedran executable, and reading its CSV traces.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

namespace fedran::test
{

/// A small scenario on the real Fashion-MNIST data (installed by .ci/deps).
nlohmann::json TinyScenario(uint32_t clients, uint32_t clientsPerRound, uint32_t rounds);

/// A fresh, empty folder under the system temp dir, removed when the object dies.
class TempDir
{
  public:
    explicit TempDir(const std::string& tag);
    ~TempDir();

    const std::filesystem::path& Path() const
    {
        return m_path;
    }

  private:
    std::filesystem::path m_path;
};

void WriteFile(const std::filesystem::path& path, const std::string& text);
std::string ReadFile(const std::filesystem::path& path);

struct CommandResult
{
    int exitCode = -1;
    std::string stdoutText;
    std::string stderrText;
};

/// Runs the fedran executable with `args` (already shell-quoted as needed).
CommandResult RunFedran(const std::string& args, const std::filesystem::path& workDir);

/// `fedran run s.json --out out --quiet --threads 1` started in the background in `dir`, its
/// stdout and stderr written to dir/stdout.txt and dir/stderr.txt; returns its pid.
pid_t StartFedranRun(const std::filesystem::path& dir);

/// Waits for `pid` to end: its exit status, or 128 + the signal that ended it.
int WaitForExit(pid_t pid);

/// Each of `files` is non-empty in folder `a` and byte-identical in folder `b`.
void ExpectSameTraces(const std::filesystem::path& a,
                      const std::filesystem::path& b,
                      const std::vector<std::string>& files = {"rounds.csv",
                                                               "clients.csv",
                                                               "partition.csv"});

/// A CSV file as rows of column -> text.
std::vector<std::map<std::string, std::string>> ReadCsv(const std::filesystem::path& path);

/// The sum of an integer column over every row of a CSV file.
uint64_t SumColumn(const std::filesystem::path& csv, const std::string& column);

} // namespace fedran::test

#endif
