#ifndef FEDRAN_MODELS_TRACE_OUTPUT_RECORD_H
#define FEDRAN_MODELS_TRACE_OUTPUT_RECORD_H

// The record of the files a run wrote into its folder (outputs.txt). Every writer of a trace
// adds its file here before creating it, so that replacing a run or cleaning up after a failed
// one (simulator/core/output-folder.h) removes those files and no others.

#include <string>
#include <vector>

namespace fedran
{

/// The record of a run folder's own files: one path a line, relative to the folder. Every
/// file is added before it is created (RecordOutputFile); analysis/run_outputs.py adds the
/// plots. A file not listed here is not fedran's, and fedran never removes it.
constexpr const char* kOutputRecordFile = "outputs.txt";

/// Adds `name` (a file name relative to `outDir`) to outDir/outputs.txt unless it is there
/// already, and syncs the record, so that even a killed run's files are known. Throws
/// std::runtime_error naming the file and the OS error when it cannot be written.
void RecordOutputFile(const std::string& outDir, const std::string& name);

/// The names outDir/outputs.txt lists, in its order (none if there is no record).
std::vector<std::string> RecordedOutputFiles(const std::string& outDir);

/// "<what> <path>: <the OS error of errno>", for messages about a failed system call.
std::string OsError(const std::string& what, const std::string& path);

/// Writes all of `text` to `fd`, retrying short writes and EINTR; throws std::runtime_error
/// naming `path` and the OS error.
void WriteAll(int fd, const std::string& text, const std::string& path);

} // namespace fedran

#endif
