#ifndef FEDRAN_MODELS_LINK_CONFIG_UNITS_H
#define FEDRAN_MODELS_LINK_CONFIG_UNITS_H

// Data rates and times written as strings in scenario files ("50Mbps", "5ms").

#include <cstdint>
#include <string>

namespace fedran
{

/// "50Mbps" -> 50e6 bits/s; accepts bps, kbps, Mbps, Gbps (SI, as ns-3 DataRate) and
/// plain numbers (bits/s). Throws std::invalid_argument with the reason.
uint64_t ParseDataRate(const std::string& text);

/// "5ms" -> 0.005 s; accepts s, ms, us, ns, min and plain numbers (seconds).
double ParseTime(const std::string& text);

} // namespace fedran

#endif
