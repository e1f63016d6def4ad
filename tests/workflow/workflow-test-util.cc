#include "workflow-test-util.h"

#include <algorithm>
#include <cstdlib>
#include <sys/wait.h>

namespace fedran::test
{

ToolResult
RunTool(const std::string& script,
        const std::string& args,
        const std::filesystem::path& workDir,
        const std::string& env)
{
    const std::filesystem::path out = workDir / "tool-stdout.txt";
    const std::filesystem::path err = workDir / "tool-stderr.txt";
    const std::string command = "cd '" + workDir.string() + "' && " + env +
                                " /usr/bin/python3 '" FEDRAN_SOURCE_DIR "/analysis/" + script +
                                "' " + args + " > '" + out.string() + "' 2> '" + err.string() +
                                "'";
    const int status = std::system(command.c_str());
    ToolResult result;
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.stdoutText = ReadFile(out);
    result.stderrText = ReadFile(err);
    std::filesystem::remove(out);
    std::filesystem::remove(err);
    return result;
}

std::filesystem::path
WriteTinySweep(const std::filesystem::path& dir, nlohmann::json sweep)
{
    WriteFile(dir / "base.json", TinyScenario(4, 2, 2).dump(2));
    sweep["scenario"] = "base.json";
    WriteFile(dir / "sweep.json", sweep.dump(2));
    return dir / "sweep.json";
}

std::string
FedranArg()
{
    return "--fedran '" FEDRAN_BINARY "'";
}

std::vector<std::filesystem::path>
RunDirs(const std::filesystem::path& sweepDir)
{
    std::vector<std::filesystem::path> dirs;
    if (std::filesystem::is_directory(sweepDir / "runs"))
    {
        for (const auto& entry : std::filesystem::directory_iterator(sweepDir / "runs"))
        {
            dirs.push_back(entry.path());
        }
    }
    std::sort(dirs.begin(), dirs.end());
    return dirs;
}

} // namespace fedran::test
