#ifndef FEDRAN_SIMULATOR_CORE_CODEC_COMMAND_H
#define FEDRAN_SIMULATOR_CORE_CODEC_COMMAND_H

#include <cstdint>
#include <optional>
#include <string>

namespace fedran
{

/// Options of `fedran codec`: run one codec on a vector of float32 so it can be inspected.
struct CodecCommandOptions
{
    std::string spec;  ///< codec spec as JSON text, or @FILE
    std::string input; ///< raw little-endian float32 (encode mode)
    std::string shape; ///< "N" or "R,C"; default: one tensor of the input's size
    uint64_t seed = 1;
    std::optional<std::string> payload; ///< encode: where to write it; decode: what to read
    std::optional<std::string> decoded; ///< where to write the decoded float32
    bool decode = false;
};

/**
 * Encode mode: encodes the input, decodes the payload again, and prints one JSON object
 * {"raw_bytes","payload_bytes","ratio","encode_seconds","decode_seconds","l2_error",
 * "relative_l2_error","nnz"} on stdout. Decode mode: decodes a payload into --decoded.
 * Throws BadInput (exit 2) for unusable files or options, and DecodeError / CodecConfigError
 * for a corrupt payload or a bad spec. Files are written only when everything succeeded.
 */
int RunCodecCommand(const CodecCommandOptions& options);

} // namespace fedran

#endif
