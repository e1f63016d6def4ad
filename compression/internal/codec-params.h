#ifndef FEDRAN_COMPRESSION_INTERNAL_CODEC_PARAMS_H
#define FEDRAN_COMPRESSION_INTERNAL_CODEC_PARAMS_H

// Typed readers for codec parameters. Each takes the key (so that it counts as known), checks
// the JSON type and fails with the key's path; range checks stay with the codec, which knows
// what the number means.

#include "compression/internal/codecs.h"

#include <cstdint>
#include <optional>
#include <string>

namespace fedran::internal
{

/// A finite JSON number (not a boolean), or nullopt when the key is absent.
std::optional<double> TakeNumber(CodecArgs& args, const std::string& key);

/// A JSON integer in [0, 2^32), or nullopt when the key is absent. 4.0 is not an integer.
std::optional<uint32_t> TakeCount(CodecArgs& args, const std::string& key);

/// A JSON boolean, or nullopt when the key is absent.
std::optional<bool> TakeBool(CodecArgs& args, const std::string& key);

/// A JSON string, or nullopt when the key is absent.
std::optional<std::string> TakeString(CodecArgs& args, const std::string& key);

} // namespace fedran::internal

#endif
