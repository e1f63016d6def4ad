#ifndef FEDRAN_TESTS_FUZZ_FUZZ_TARGETS_H
#define FEDRAN_TESTS_FUZZ_FUZZ_TARGETS_H

// Entry points that feed untrusted bytes to every parser that reads them off the network.
// They are driven two ways: by libFuzzer (tests/fuzz/libfuzzer/, clang, FEDRAN_LIBFUZZER=ON)
// and by the randomized-mutation GoogleTest in mutation-test.cc, which runs in CI under
// ASan/UBSan. A target returns normally for any input; a crash or sanitizer report is a bug.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fedran::fuzz
{

/// Bytes as they arrive on a TCP stream: cut into pieces, reassembled into frames.
void FuzzFrameStream(const uint8_t* data, size_t size);

/// data[0] picks a codec spec (modulo the number of specs), the rest is its payload.
void FuzzCodecDecode(const uint8_t* data, size_t size);

/// Valid inputs for FuzzCodecDecode: one encoded payload per codec spec, tagged.
std::vector<std::vector<uint8_t>> CodecDecodeSeeds();

/// The four parsers of a two-exchange codec (power_sgd): byte 0 picks the client's state or
/// reply parser or the server's first-payload or reply parser; the rest is the message.
void FuzzExchangeMessages(const uint8_t* data, size_t size);

std::vector<std::vector<uint8_t>> ExchangeMessageSeeds();

/// Valid inputs for FuzzFrameStream: a few frames back to back.
std::vector<std::vector<uint8_t>> FrameStreamSeeds();

/// The scenario reader, validator and --set parser: byte 0 picks a whole scenario text
/// (even) or a --set assignment applied to a valid base scenario (odd); the rest is the text.
void FuzzScenario(const uint8_t* data, size_t size);

/// What FuzzScenario saw since the last call: inputs run, accepted, rejected with a scenario
/// or codec error, and findings (any other exception: a bug).
struct ScenarioFuzzCounts
{
    uint64_t executions = 0;
    uint64_t accepted = 0;
    uint64_t rejected = 0;
    uint64_t findings = 0;
    std::string firstFinding;   ///< the first finding's exception and input
    std::string firstRejection; ///< the first rejection's message
};

ScenarioFuzzCounts TakeScenarioFuzzCounts();

/// The shipped scenarios (scenarios/*.json) and a few --set assignments.
std::vector<std::vector<uint8_t>> ScenarioSeeds();

} // namespace fedran::fuzz

#endif
