#include "sim-test-util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fedran::test
{

nlohmann::json
TinyScenario(uint32_t clients, uint32_t clientsPerRound, uint32_t rounds)
{
    return {
        {"name", "tiny"},
        {"seed", 7},
        {"rounds", rounds},
        {"data", {{"dataset", "fashion-mnist"}, {"path", "/usr/share/datasets/fashion-mnist"}}},
        {"model", {{"type", "softmax"}}},
        {"training", {{"local_epochs", 1}, {"batch_size", 32}, {"lr", 0.05}}},
        {"server", {{"clients_per_round", clientsPerRound}, {"deadline_s", 60}}},
        {"clients",
         {{"groups",
           {{{"name", "sites"},
             {"count", clients},
             {"compute", {{"samples_per_second", 20000}}},
             {"backhaul", {{"type", "p2p"}, {"rate", "50Mbps"}, {"delay", "5ms"}}}}}}}},
        {"network", {{"core", {{"rate", "1Gbps"}, {"delay", "10ms"}}}}},
    };
}

TempDir::TempDir(const std::string& tag)
{
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("fedran-" + tag + "-XXXXXX")).string();
    if (!mkdtemp(pattern.data()))
    {
        throw std::runtime_error("mkdtemp failed");
    }
    m_path = pattern;
}

TempDir::~TempDir()
{
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

void
WriteFile(const std::filesystem::path& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
}

std::string
ReadFile(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Without the fedran executable (tests of the ns-3-free libraries) the helpers that run it
// are left out.
#ifdef FEDRAN_BINARY
CommandResult
RunFedran(const std::string& args, const std::filesystem::path& workDir)
{
    const std::filesystem::path errFile = workDir / "stderr.txt";
    const std::filesystem::path outFile = workDir / "stdout.txt";
    const std::string command = "cd '" + workDir.string() + "' && '" FEDRAN_BINARY "' " + args +
                                " > '" + outFile.string() + "' 2> '" + errFile.string() + "'";
    const int status = std::system(command.c_str());
    CommandResult result;
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.stdoutText = ReadFile(outFile);
    result.stderrText = ReadFile(errFile);
    std::filesystem::remove(outFile);
    std::filesystem::remove(errFile);
    return result;
}

#endif

std::vector<std::map<std::string, std::string>>
ReadCsv(const std::filesystem::path& path)
{
    std::ifstream in(path);
    std::string line;
    std::vector<std::string> header;
    std::vector<std::map<std::string, std::string>> rows;
    // RFC 4180 cells: a quoted cell may hold commas, and "" inside it is one quote (pandas
    // quotes JSON-valued columns of the sweep summaries that way).
    auto split = [](const std::string& text) {
        std::vector<std::string> cells(1);
        bool quoted = false;
        for (size_t i = 0; i < text.size(); ++i)
        {
            const char c = text[i];
            if (quoted && c == '"' && i + 1 < text.size() && text[i + 1] == '"')
            {
                cells.back() += '"';
                ++i;
            }
            else if (c == '"')
            {
                quoted = !quoted;
            }
            else if (c == ',' && !quoted)
            {
                cells.emplace_back();
            }
            else
            {
                cells.back() += c;
            }
        }
        return cells;
    };
    if (std::getline(in, line))
    {
        header = split(line);
    }
    while (std::getline(in, line))
    {
        std::vector<std::string> cells = split(line);
        EXPECT_EQ(cells.size(), header.size()) << path << ": " << line;
        std::map<std::string, std::string> row;
        for (size_t i = 0; i < header.size() && i < cells.size(); ++i)
        {
            row[header[i]] = cells[i];
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

void
ExpectSameTraces(const std::filesystem::path& a,
                 const std::filesystem::path& b,
                 const std::vector<std::string>& files)
{
    for (const std::string& file : files)
    {
        const std::string text = ReadFile(a / file);
        ASSERT_FALSE(text.empty()) << file;
        EXPECT_EQ(text, ReadFile(b / file)) << file;
    }
}

uint64_t
SumColumn(const std::filesystem::path& csv, const std::string& column)
{
    uint64_t total = 0;
    for (auto& row : ReadCsv(csv))
    {
        total += std::stoull(row[column]);
    }
    return total;
}

#ifdef FEDRAN_BINARY
pid_t
StartFedranRun(const std::filesystem::path& dir)
{
    const pid_t pid = fork();
    if (pid == 0)
    {
        if (chdir(dir.c_str()) != 0)
        {
            _exit(127);
        }
        const int out = open("stdout.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err = open("stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(out, 1);
        dup2(err, 2);
        execl(FEDRAN_BINARY,
              FEDRAN_BINARY,
              "run",
              "s.json",
              "--out",
              "out",
              "--quiet",
              "--threads",
              "1",
              static_cast<char*>(nullptr));
        _exit(127);
    }
    return pid;
}
#endif

int
WaitForExit(pid_t pid)
{
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace fedran::test
