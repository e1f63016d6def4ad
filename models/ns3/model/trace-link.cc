#include "models/ns3/model/trace-link.h"

#include <ns3/point-to-point-helper.h>

#include <cmath>
#include <stdexcept>

namespace ns3
{

const LinkTrace&
TraceLink::Load(const fedran::LinkConfig& config) const
{
    const std::string file = config.spec.at("file").get<std::string>();
    const std::string format = config.spec.value("format", "csv");
    const double binS = config.spec.value("bin_s", 0.1);
    const std::string key = format + ":" + std::to_string(binS) + ":" + file;
    auto it = m_traces.find(key);
    if (it != m_traces.end())
    {
        return it->second;
    }
    try
    {
        LinkTrace trace = format == "mahimahi" ? ReadMahimahiTrace(file, binS) : ReadCsvTrace(file);
        return m_traces.emplace(key, std::move(trace)).first->second;
    }
    catch (const std::invalid_argument& e)
    {
        throw fedran::ScenarioError(config.path + ".file: " + e.what());
    }
}

void
TraceLink::Check(const fedran::LinkConfig& config) const
{
    Load(config);
}

std::unique_ptr<InstalledLink>
TraceLink::Install(Ptr<Node> client, Ptr<Node> router, const fedran::LinkConfig& config)
{
    const LinkTrace& trace = Load(config);
    PointToPointHelper p2p;
    NetDeviceContainer devices = p2p.Install(client, router);
    Ptr<VariableRateLink> link = CreateObject<VariableRateLink>();
    link->Attach(devices);
    Ptr<TracePlayer> player = CreateObject<TracePlayer>();
    player->Start(trace, link, config.delayS, config.loss);
    m_links.push_back(link);
    m_players.push_back(player);
    return std::make_unique<PointToPointInstalledLink>(
        devices,
        [link] { return link->GetCapacity(); },
        [] { return std::nan(""); },
        static_cast<uint64_t>(std::llround(trace.MeanRate())));
}

int64_t
TraceLink::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (auto& link : m_links)
    {
        used += link->AssignStreams(stream + used);
    }
    return used;
}

} // namespace ns3
