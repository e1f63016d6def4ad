#include "workflow-test-util.h"

#include <gtest/gtest.h>

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
                                "' " + args + " > '" + out.string() + "' 2> '" + err.string() + "'";
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

std::string
TraceHeaderLine(const std::string& file, const std::vector<std::string>& columns)
{
    const std::string text =
        ReadFile(std::filesystem::path(FEDRAN_SOURCE_DIR) / "models/trace/trace-columns.cc");
    const std::string begin = "R\"trace-columns(";
    const size_t at = text.find(begin);
    const size_t end = text.find(")trace-columns\"");
    if (at == std::string::npos || end == std::string::npos || end < at)
    {
        ADD_FAILURE() << "models/trace/trace-columns.cc: no table between the markers";
        return "";
    }
    const nlohmann::json table =
        nlohmann::json::parse(text.substr(at + begin.size(), end - at - begin.size()));
    std::vector<std::string> listed;
    for (const auto& entry : table.at("files"))
    {
        if (entry.at("file") == file)
        {
            for (const auto& column : entry.at("columns"))
            {
                listed.push_back(column.at("name"));
            }
        }
    }
    if (listed.empty())
    {
        ADD_FAILURE() << file << " is not in the trace table";
    }
    const std::vector<std::string>& names = columns.empty() ? listed : columns;
    std::string line;
    size_t previous = 0;
    for (const std::string& name : names)
    {
        const auto found = std::find(listed.begin(), listed.end(), name);
        if (found == listed.end())
        {
            ADD_FAILURE() << file << ": no column " << name << " in the trace table";
        }
        else if (size_t(found - listed.begin()) < previous)
        {
            ADD_FAILURE() << file << ": " << name << " is out of the trace table's order";
        }
        else
        {
            previous = size_t(found - listed.begin());
        }
        line += (line.empty() ? "" : ",") + name;
    }
    return line + "\n";
}

} // namespace fedran::test
