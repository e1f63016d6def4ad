#ifndef FEDRAN_TESTS_WORKFLOW_WORKFLOW_TEST_UTIL_H
#define FEDRAN_TESTS_WORKFLOW_WORKFLOW_TEST_UTIL_H

// Running the Python research tools (analysis/sweep.py, analysis/plot.py) on temp folders.

#include "../sim/sim-test-util.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace fedran::test
{

struct ToolResult
{
    int exitCode = -1;
    std::string stdoutText;
    std::string stderrText;
};

/// Runs `/usr/bin/python3 analysis/<script> <args>` in `workDir`; `env` is prepended to the
/// command line ("NAME=value ..."); args are already shell-quoted as needed.
ToolResult RunTool(const std::string& script,
                   const std::string& args,
                   const std::filesystem::path& workDir,
                   const std::string& env = "");

/// A sweep over the tiny scenario (4 clients, 2 per round, 2 rounds), written to
/// dir/base.json, with `sweep` (name, grid, zip, seeds, ...) written to dir/sweep.json.
std::filesystem::path WriteTinySweep(const std::filesystem::path& dir, nlohmann::json sweep);

/// The --fedran argument naming the executable this build made.
std::string FedranArg();

/// The run folders under DIR/runs.
std::vector<std::filesystem::path> RunDirs(const std::filesystem::path& sweepDir);

/// The header line ("a,b,c\n") of a hand-written trace `file` (rounds.csv, clients.csv, ...)
/// with the given columns; each must be a column of that file in the trace table
/// (models/trace/trace-columns.cc), in the table's order. With no columns: the table's whole
/// header (a file without repeated columns).
std::string TraceHeaderLine(const std::string& file, const std::vector<std::string>& columns = {});

} // namespace fedran::test

#endif
