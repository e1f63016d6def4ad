#ifndef FEDRAN_MODELS_LINK_CONFIG_INPUT_FILE_H
#define FEDRAN_MODELS_LINK_CONFIG_INPUT_FILE_H

// Reading a whole input file (scenario, cost profile, link trace) without trusting it: only a
// regular file, and at most a stated size. /dev/zero, a FIFO nobody writes to or a directory
// would otherwise be read forever or block; a huge file would be read into memory first.

#include <cstdint>
#include <string>

namespace fedran
{

/// Size limits of the files fedran reads whole (docs/reliability.md lists them).
constexpr uint64_t kScenarioFileLimit = 16ull << 20; ///< scenario files
constexpr uint64_t kProfileFileLimit = 16ull << 20;  ///< compute cost profiles
constexpr uint64_t kTraceFileLimit = 1ull << 30;     ///< link traces (csv or mahimahi)

/**
 * The bytes of `path`, which must be a regular file of at most `limit` bytes. Throws
 * ScenarioError naming the path and what it is instead ("x: is a FIFO, not a link trace",
 * "x: is 2.0 GiB; a link trace is read up to 1.0 GiB"); `what` names the kind of file. The file is
 * opened without blocking, so a FIFO is refused at once.
 */
std::string ReadInputFile(const std::string& path, uint64_t limit, const std::string& what);

} // namespace fedran

#endif
