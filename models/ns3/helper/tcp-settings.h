#ifndef FEDRAN_MODELS_NS3_HELPER_TCP_SETTINGS_H
#define FEDRAN_MODELS_NS3_HELPER_TCP_SETTINGS_H

// TCP on every host of a backhaul network, as ns-3 Config defaults.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace ns3
{

/// What may be chosen of the hosts' TCP (a scenario's network.tcp).
struct BackhaulTcpConfig
{
    std::string congestionControl = "cubic"; ///< a name TcpCongestionTypeId knows
    uint32_t initialWindow = 10;             ///< segments
    bool delayedAck = true;
    bool sack = true;
};

/**
 * TCP settings for backhaul bulk transfers (Config defaults; call before building sockets and
 * the topology, whose end-host queues are sized from them). ns-3's defaults (536-byte
 * segments, 128 KiB buffers) would cap a 50 Mbit/s, 30 ms path well below its rate; these
 * match a Linux host. `tcp` picks the congestion control, initial window, delayed ACKs and
 * SACK; every setting is written, so a later run in the same process does not inherit an
 * earlier one's.
 */
void ConfigureBackhaulTcp(const BackhaulTcpConfig& tcp = {});

/// The ns-3.37 TypeId of a congestion-control name ("cubic" -> "ns3::TcpCubic"); throws
/// std::invalid_argument for an unknown name.
std::string TcpCongestionTypeId(const std::string& name);

/// The TCP settings now in force (the Config defaults ConfigureBackhaulTcp set), for run.json.
nlohmann::json BackhaulTcpSettings();

} // namespace ns3

#endif
