#include "models/ns3/model/trace-link.h"

#include "models/ns3/model/asymmetric-link.h"

#include <cmath>
#include <stdexcept>

namespace ns3
{

namespace
{

/// The key naming the uplink's (or both directions') trace: file or uplink.
std::string
UplinkKey(const fedran::LinkConfig& config)
{
    const bool file = config.spec.contains("file");
    const bool uplink = config.spec.contains("uplink");
    if (file == uplink)
    {
        throw fedran::ScenarioError(config.path + (file ? ".uplink" : "") +
                                    ": a trace link needs exactly one of file and uplink");
    }
    return file ? "file" : "uplink";
}

} // namespace

const TraceLink::Traces&
TraceLink::Load(const fedran::LinkConfig& config) const
{
    const std::string upKey = UplinkKey(config);
    const std::string format = config.spec.value("format", "csv");
    const double binS = config.spec.value("bin_s", 0.1);
    auto read = [&](const std::string& key, LinkTrace* columns) {
        const std::string file = config.spec.at(key).get<std::string>();
        try
        {
            return format == "mahimahi" ? ReadMahimahiTrace(file, binS)
                                        : ReadCsvTrace(file, columns);
        }
        catch (const std::invalid_argument& e)
        {
            throw fedran::ScenarioError(config.path + "." + key + ": " + e.what());
        }
    };
    const std::string down =
        config.spec.contains("downlink") ? config.spec.at("downlink").get<std::string>() : "";
    const std::string cacheKey = format + ":" + std::to_string(binS) + ":" +
                                 config.spec.at(upKey).get<std::string>() + ":" + down;
    auto it = m_traces.find(cacheKey);
    if (it != m_traces.end())
    {
        return it->second;
    }
    Traces traces;
    LinkTrace columns;
    traces.up = read(upKey, &columns);
    if (!columns.steps.empty())
    {
        if (!down.empty())
        {
            throw fedran::ScenarioError(config.path +
                                        ".downlink: " + config.spec.at(upKey).get<std::string>() +
                                        " has downlink columns already");
        }
        traces.down = std::move(columns);
    }
    else if (!down.empty())
    {
        traces.down = read("downlink", nullptr);
    }
    return m_traces.emplace(cacheKey, std::move(traces)).first->second;
}

void
TraceLink::Check(const fedran::LinkConfig& config) const
{
    Load(config);
}

std::unique_ptr<InstalledLink>
TraceLink::Install(Ptr<Node> client, Ptr<Node> router, const fedran::LinkConfig& config)
{
    const Traces& traces = Load(config);
    // ns-3's default rate and delay until the players apply their first steps; a downlink
    // trace may have delays of its own, so the channel then carries one per direction.
    NetDeviceContainer devices =
        InstallPointToPoint(client,
                            router,
                            {32768, 32768, Seconds(0), Seconds(0), traces.down.has_value()});
    Ptr<VariableRateLink> link = CreateObject<VariableRateLink>();
    link->Attach(devices);
    m_links.push_back(link);
    const auto mean = [](const LinkTrace& trace) {
        return static_cast<uint64_t>(std::llround(trace.MeanRate()));
    };
    auto installed = std::make_unique<PointToPointInstalledLink>(
        devices,
        [link] { return link->GetCapacity(); },
        [] { return std::nan(""); },
        mean(traces.up));
    Ptr<TracePlayer> up = CreateObject<TracePlayer>();
    m_players.push_back(up);
    if (!traces.down)
    {
        up->Start(traces.up, link, config.delayS, config.loss);
        return installed;
    }
    up->Start(traces.up, link, config.delayS, config.loss, VariableRateLink::UP);
    Ptr<TracePlayer> down = CreateObject<TracePlayer>();
    m_players.push_back(down);
    down->Start(*traces.down, link, config.delayS, config.loss, VariableRateLink::DOWN);
    installed->SetDownlink([link] { return link->GetCapacity(VariableRateLink::DOWN); },
                           mean(*traces.down));
    return installed;
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
