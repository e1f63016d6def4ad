#include "models/ns3/model/microwave-link.h"

#include "compression/portable-math.h"

#include <ns3/data-rate.h>
#include <ns3/point-to-point-helper.h>

#include <cmath>

namespace ns3
{

namespace
{

using nlohmann::json;

/// Presets, in scenario keys. Link budgets give the clear-sky SNR (see SnrFromBudget):
/// e_band 44.5 dB (4096-QAM, 2.25 Gbit/s), 6_ghz 52.3 dB (4096-QAM, 252 Mbit/s with 12 dB to
/// spare), none 51.0 dB (4096-QAM, 504 Mbit/s). Rain figures follow ITU-R P.530/P.838 orders
/// of magnitude: at 80 GHz moderate rain costs ~10 dB/km, at 6 GHz a fraction of a dB.
const json&
Preset(const std::string& name)
{
    static const json kPresets = {
        {"none",
         {{"bandwidth_mhz", 56},
          {"efficiency", 0.75},
          {"frequency_ghz", 18},
          {"distance_km", 5},
          {"tx_power_dbm", 18},
          {"antenna_gain_dbi", 38},
          {"noise_figure_db", 6},
          {"losses_db", 2},
          {"fade", {{"type", "none"}}}}},
        {"6_ghz",
         {{"bandwidth_mhz", 28},
          {"efficiency", 0.75},
          {"frequency_ghz", 6.2},
          {"distance_km", 50},
          {"tx_power_dbm", 26},
          {"antenna_gain_dbi", 38.5},
          {"noise_figure_db", 5},
          {"losses_db", 3},
          {"fade",
           {{"type", "rain"},
            {"median_db", 1.5},
            {"sigma", 0.6},
            {"correlation_s", 120},
            {"mean_rain_s", 1200},
            {"mean_dry_s", 3600},
            {"step_s", 1}}}}},
        {"e_band",
         {{"bandwidth_mhz", 250},
          {"efficiency", 0.75},
          {"frequency_ghz", 80},
          {"distance_km", 2},
          {"tx_power_dbm", 14},
          {"antenna_gain_dbi", 43},
          {"noise_figure_db", 8},
          {"losses_db", 1},
          {"fade",
           {{"type", "rain"},
            {"median_db", 8},
            {"sigma", 0.7},
            {"correlation_s", 60},
            {"mean_rain_s", 600},
            {"mean_dry_s", 1200},
            {"step_s", 0.5}}}}},
    };
    return kPresets.at(name);
}

/// Clear-sky SNR from the link budget: received power minus thermal noise (kTB + NF).
double
SnrFromBudget(const json& p)
{
    const double f = p.at("frequency_ghz").get<double>();
    const double d = p.at("distance_km").get<double>();
    const double freeSpaceDb =
        92.45 + 20.0 * fedran::pmath::Log10(f) + 20.0 * fedran::pmath::Log10(d);
    const double rxDbm = p.at("tx_power_dbm").get<double>() +
                         2.0 * p.at("antenna_gain_dbi").get<double>() - freeSpaceDb -
                         p.at("losses_db").get<double>();
    const double noiseDbm = -174.0 +
                            10.0 * fedran::pmath::Log10(p.at("bandwidth_mhz").get<double>() * 1e6) +
                            p.at("noise_figure_db").get<double>();
    return rxDbm - noiseDbm;
}

[[noreturn]] void
Fail(const std::string& path, const std::string& message)
{
    throw fedran::ScenarioError(path + ": " + message);
}

} // namespace

MicrowaveParams
MicrowaveLink::Resolve(const fedran::LinkConfig& config)
{
    const json& spec = config.spec;
    const std::string& path = config.path;
    json p = Preset(spec.value("preset", "none"));
    for (const auto& [key, value] : spec.items())
    {
        if (key == "fade" && value.value("type", p["fade"]["type"].get<std::string>()) ==
                                 p["fade"]["type"].get<std::string>())
        {
            p["fade"].update(value); // same fade type: override the preset's parameters
        }
        else
        {
            p[key] = value;
        }
    }

    MicrowaveParams params;
    params.bandwidthHz = p.at("bandwidth_mhz").get<double>() * 1e6;
    params.efficiency = p.at("efficiency").get<double>();
    params.clearSkySnrDb = p.contains("snr_db") ? p.at("snr_db").get<double>() : SnrFromBudget(p);
    params.delayS = p.contains("delay") ? fedran::ParseTime(p.at("delay").get<std::string>())
                                        : p.at("distance_km").get<double>() / 299792.458;
    params.berAtThreshold = p.value("ber_at_threshold", 1e-6);
    params.berDecadeDb = p.value("ber_decade_db", 0.5);
    if (p.contains("modulations"))
    {
        const json& table = p.at("modulations");
        for (size_t i = 0; i < table.size(); ++i)
        {
            Modulation m;
            m.name = table[i].value("name", std::to_string(i));
            m.snrDb = table[i].at("snr_db").get<double>();
            m.bits = table[i].at("bits").get<double>();
            if (i > 0 && m.snrDb <= params.modulations.back().snrDb)
            {
                Fail(path + ".modulations." + std::to_string(i) + ".snr_db",
                     "thresholds must increase (" + std::to_string(m.snrDb) + " after " +
                         std::to_string(params.modulations.back().snrDb) + ")");
            }
            params.modulations.push_back(m);
        }
    }

    const json& fade = p.at("fade");
    const std::string fadePath = path + ".fade";
    params.fade = fade.value("type", "none");
    if (params.fade == "rain")
    {
        for (const char* key :
             {"median_db", "sigma", "correlation_s", "mean_rain_s", "mean_dry_s", "step_s"})
        {
            if (!fade.contains(key))
            {
                Fail(fadePath + "." + key, "missing (required for a rain fade without a preset)");
            }
        }
        params.medianDb = fade.at("median_db").get<double>();
        params.sigma = fade.at("sigma").get<double>();
        params.correlationS = fade.at("correlation_s").get<double>();
        params.meanRainS = fade.at("mean_rain_s").get<double>();
        params.meanDryS = fade.at("mean_dry_s").get<double>();
        params.stepS = fade.at("step_s").get<double>();
    }
    else if (params.fade == "script")
    {
        if (!fade.contains("points"))
        {
            Fail(fadePath + ".points", "missing (required for a script fade)");
        }
        const json& points = fade.at("points");
        for (size_t i = 0; i < points.size(); ++i)
        {
            const std::string at = fadePath + ".points." + std::to_string(i);
            if (points[i].size() != 2 || !points[i][0].is_number() || !points[i][1].is_number())
            {
                Fail(at, "expected [time_s, attenuation_db], got " + points[i].dump());
            }
            const double time = points[i][0].get<double>();
            if (time < 0 || (i > 0 && time <= params.points.back().first))
            {
                Fail(at, "times must be non-negative and increasing");
            }
            params.points.emplace_back(time, points[i][1].get<double>());
        }
    }
    return params;
}

void
MicrowaveLink::Check(const fedran::LinkConfig& config) const
{
    Resolve(config);
}

std::unique_ptr<InstalledLink>
MicrowaveLink::Install(Ptr<Node> client, Ptr<Node> router, const fedran::LinkConfig& config)
{
    const MicrowaveParams params = Resolve(config);
    PointToPointHelper p2p;
    NetDeviceContainer devices = p2p.Install(client, router);
    Ptr<VariableRateLink> link = CreateObject<VariableRateLink>();
    link->Attach(devices);
    Ptr<MicrowaveRadio> radio = CreateObject<MicrowaveRadio>();
    radio->Start(params, link);
    m_links.push_back(link);
    m_radios.push_back(radio);

    return std::make_unique<PointToPointInstalledLink>(
        devices,
        [link] { return link->GetCapacity(); },
        [radio] { return radio->GetSnrDb(); },
        radio->GetClearSkyRate());
}

int64_t
MicrowaveLink::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (size_t i = 0; i < m_radios.size(); ++i)
    {
        used += m_links[i]->AssignStreams(stream + used);
        used += m_radios[i]->AssignStreams(stream + used);
    }
    return used;
}

} // namespace ns3
