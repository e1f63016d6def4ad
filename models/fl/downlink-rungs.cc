#include "models/fl/downlink-rungs.h"

#include "compression/adaptive-ladder.h"
#include "compression/codec.h"

#include <nlohmann/json.hpp>

#include <bit>

namespace fedran::control
{

DownlinkConfig
ParseDownlinkConfig(const nlohmann::json& spec, const std::string& path)
{
    DownlinkConfig config;
    if (const auto policy = spec.find("policy"); policy != spec.end() && *policy != "time")
    {
        throw CodecConfigError(path +
                               ".policy: the downlink's only policy is \"time\" (the "
                               "server's equal-finish rule), got " +
                               policy->dump());
    }
    if (const auto window = spec.find("window"); window != spec.end())
    {
        if (!window->is_number_integer() || window->get<int64_t>() < 1 ||
            window->get<int64_t>() > 1000)
        {
            throw CodecConfigError(path + ".window: must be an integer in [1, 1000], got " +
                                   window->dump());
        }
        config.window = window->get<size_t>();
    }
    // The downlink's controller reads nothing else: a key it would ignore is refused.
    for (std::string_view key : kLadderControllerKeys)
    {
        if (key != "policy" && key != "window" && spec.contains(std::string(key)))
        {
            throw CodecConfigError(path + "." + std::string(key) +
                                   ": not a key of an adaptive downlink (it reads only "
                                   "\"policy\" and \"window\")");
        }
    }
    if (spec.contains("on_skip"))
    {
        throw CodecConfigError(path + ".on_skip: the server never skips a model frame");
    }
    return config;
}

std::vector<size_t>
ChooseDownlinkRungs(std::span<const std::optional<double>> predictedBps,
                    std::span<const std::vector<uint64_t>> frameBytes)
{
    const size_t n = predictedBps.size();
    std::vector<size_t> rungs(n, 0);
    auto seconds = [&](size_t i, size_t r) {
        return 8.0 * double(frameBytes[i][r]) / *predictedBps[i];
    };
    // E: when the slowest measured client's download ends at the coarsest rung.
    std::optional<double> end;
    for (size_t i = 0; i < n; ++i)
    {
        if (predictedBps[i] && *predictedBps[i] > 0.0 && !frameBytes[i].empty())
        {
            const double coarsest = seconds(i, frameBytes[i].size() - 1);
            end = end ? std::max(*end, coarsest) : coarsest;
        }
    }
    if (!end)
    {
        return rungs; // nobody measured: the most faithful model for everyone
    }
    const double limit = *end * kDownlinkFinishSlack;
    for (size_t i = 0; i < n; ++i)
    {
        if (!predictedBps[i] || *predictedBps[i] <= 0.0 || frameBytes[i].empty())
        {
            continue; // not measured yet: rung 0
        }
        const size_t coarsest = frameBytes[i].size() - 1;
        size_t r = 0;
        while (r < coarsest && seconds(i, r) > limit)
        {
            ++r;
        }
        rungs[i] = r;
    }
    return rungs;
}

DownlinkRungs::DownlinkRungs(DownlinkConfig config)
    : m_config(config)
{
}

void
DownlinkRungs::FrameSent(uint32_t client, uint32_t round, uint64_t frameBytes)
{
    m_sent[client] = {round, frameBytes};
}

void
DownlinkRungs::DownloadReported(uint32_t client, uint32_t round, double seconds)
{
    const auto sent = m_sent.find(client);
    if (sent == m_sent.end() || sent->second.round != round || !(seconds > 0.0))
    {
        return;
    }
    auto predictor = m_predictors.try_emplace(client, m_config.window).first;
    predictor->second.Add({double(sent->second.bytes), seconds, 0.0});
}

std::optional<double>
DownlinkRungs::PredictBps(uint32_t client) const
{
    const auto it = m_predictors.find(client);
    return it == m_predictors.end() ? std::nullopt : it->second.PredictBps();
}

std::vector<size_t>
DownlinkRungs::Choose(std::span<const uint32_t> clients,
                      std::span<const std::vector<uint64_t>> frameBytes) const
{
    std::vector<std::optional<double>> predicted;
    predicted.reserve(clients.size());
    for (uint32_t client : clients)
    {
        predicted.push_back(PredictBps(client));
    }
    return ChooseDownlinkRungs(predicted, frameBytes);
}

void
AppendDownloadReport(std::vector<uint8_t>& payload, double seconds)
{
    const uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(seconds));
    for (size_t i = 0; i < kDownloadReportBytes; ++i)
    {
        payload.push_back(static_cast<uint8_t>(bits >> (8 * i)));
    }
}

std::span<const uint8_t>
TakeDownloadReport(std::span<const uint8_t> payload, double& seconds)
{
    if (payload.size() < kDownloadReportBytes)
    {
        throw DecodeError("update frame: no room for the download report an adaptive "
                          "downlink needs",
                          payload.size());
    }
    const std::span<const uint8_t> report = payload.last(kDownloadReportBytes);
    uint32_t bits = 0;
    for (size_t i = 0; i < kDownloadReportBytes; ++i)
    {
        bits |= uint32_t{report[i]} << (8 * i);
    }
    seconds = std::bit_cast<float>(bits);
    return payload.first(payload.size() - kDownloadReportBytes);
}

} // namespace fedran::control
