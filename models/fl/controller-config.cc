// ParseControllerConfig: the controller's half of an "adaptive" uplink spec.

#include "models/fl/rate-controller.h"

#include <nlohmann/json.hpp>

#include <map>

namespace fedran::control
{

namespace
{

class SpecReader
{
  public:
    SpecReader(const nlohmann::json& spec, const std::string& path)
        : m_spec(spec)
        , m_path(path)
    {
    }

    const nlohmann::json* Find(const std::string& key) const
    {
        const auto it = m_spec.find(key);
        return it == m_spec.end() ? nullptr : &*it;
    }

    [[noreturn]] void Fail(const std::string& key, const std::string& message) const
    {
        throw CodecConfigError(m_path + "." + key + ": " + message);
    }

    /// A number in [lo, hi] (lo excluded when `openLow`).
    std::optional<double> Number(const std::string& key, double lo, double hi, bool openLow) const
    {
        const nlohmann::json* value = Find(key);
        if (value == nullptr)
        {
            return std::nullopt;
        }
        if (!value->is_number())
        {
            Fail(key, std::string("must be a number, got ") + value->type_name());
        }
        const double x = value->get<double>();
        if (x < lo || (openLow && x == lo) || x > hi)
        {
            Fail(key,
                 "must be in " + std::string(openLow ? "(" : "[") + std::to_string(lo) + ", " +
                     std::to_string(hi) + "], got " + value->dump());
        }
        return x;
    }

    std::optional<uint64_t> Count(const std::string& key, uint64_t lo, uint64_t hi) const
    {
        const nlohmann::json* value = Find(key);
        if (value == nullptr)
        {
            return std::nullopt;
        }
        // Any JSON integer: parsed text gives unsigned ones, a C++ json literal signed ones.
        if (!value->is_number_integer() || value->get<int64_t>() < 0 ||
            value->get<uint64_t>() < lo || value->get<uint64_t>() > hi)
        {
            Fail(key,
                 "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "], got " + value->dump());
        }
        return value->get<uint64_t>();
    }

    template<typename E>
    std::optional<E> Choice(const std::string& key, const std::map<std::string, E>& names) const
    {
        const nlohmann::json* value = Find(key);
        if (value == nullptr)
        {
            return std::nullopt;
        }
        std::string known;
        for (const auto& [name, e] : names)
        {
            known += (known.empty() ? "" : ", ") + name;
            if (value->is_string() && *value == name)
            {
                return e;
            }
        }
        Fail(key, "must be one of " + known + ", got " + value->dump());
    }

    const std::string& Path() const
    {
        return m_path;
    }

  private:
    const nlohmann::json& m_spec;
    const std::string& m_path;
};

std::vector<RungWindow>
ParseRungSchedule(const SpecReader& reader, size_t rungs)
{
    std::vector<RungWindow> schedule;
    const nlohmann::json* value = reader.Find("rung_schedule");
    if (value == nullptr)
    {
        return schedule;
    }
    if (!value->is_array())
    {
        reader.Fail("rung_schedule", "must be an array of {from_round, min_rung, max_rung}");
    }
    for (size_t i = 0; i < value->size(); ++i)
    {
        const std::string at = "rung_schedule[" + std::to_string(i) + "]";
        const nlohmann::json& entry = (*value)[i];
        if (!entry.is_object())
        {
            reader.Fail(at, "must be an object");
        }
        for (const auto& item : entry.items())
        {
            if (item.key() != "from_round" && item.key() != "min_rung" && item.key() != "max_rung")
            {
                reader.Fail(at + "." + item.key(),
                            "unknown key (known: from_round, min_rung, max_rung)");
            }
        }
        const std::string entryPath = reader.Path() + "." + at;
        SpecReader entryReader(entry, entryPath);
        RungWindow window;
        window.fromRound = uint32_t(entryReader.Count("from_round", 1, UINT32_MAX).value_or(1));
        window.minRung = entryReader.Count("min_rung", 0, rungs - 1).value_or(0);
        window.maxRung = entryReader.Count("max_rung", 0, rungs - 1).value_or(rungs - 1);
        if (window.minRung > window.maxRung)
        {
            reader.Fail(at, "min_rung is above max_rung");
        }
        if (!schedule.empty() && window.fromRound <= schedule.back().fromRound)
        {
            reader.Fail(at + ".from_round", "must increase along the schedule");
        }
        schedule.push_back(window);
    }
    return schedule;
}

} // namespace

ControllerConfig
ParseControllerConfig(const nlohmann::json& spec, const std::string& path, size_t rungs)
{
    SpecReader reader(spec, path);
    ControllerConfig config;
    config.policy = reader
                        .Choice<Policy>("policy",
                                        {{"fixed", Policy::Fixed},
                                         {"throughput", Policy::Throughput},
                                         {"deadline", Policy::Deadline},
                                         {"variance", Policy::Variance},
                                         {"hybrid", Policy::Hybrid},
                                         {"time", Policy::Time},
                                         {"dadaquant", Policy::ServerLevel},
                                         {"adaquantfl", Policy::ServerLevel},
                                         {"adagq", Policy::ServerLevel}})
                        .value_or(config.policy);
    config.fixedRung = reader.Count("rung", 0, rungs - 1).value_or(0);
    config.safety = reader.Number("safety", 0.0, 1.0, true).value_or(config.safety);
    config.estimator =
        reader.Choice<EstimatorKind>("estimator",
                                     {{"harmonic_mean", EstimatorKind::HarmonicMean},
                                      {"ewma", EstimatorKind::Ewma},
                                      {"robust_harmonic_mean", EstimatorKind::RobustHarmonicMean}});
    config.window = reader.Count("window", 1, 1000).value_or(config.window);
    config.ewmaAlpha = reader.Number("ewma_alpha", 0.0, 1.0, true).value_or(config.ewmaAlpha);
    config.initialBps = reader.Number("initial_bps", 0.0, 1e15, true);
    config.noHistory = reader
                           .Choice<NoHistory>("no_history",
                                              {{"downlink", NoHistory::Downlink},
                                               {"least_faithful", NoHistory::LeastFaithful},
                                               {"most_faithful", NoHistory::MostFaithful}})
                           .value_or(config.noHistory);
    config.targetUploadS = reader.Number("target_upload_s", 0.0, 1e9, true);
    config.varianceKappa =
        reader.Number("variance_kappa", 0.0, 1e9, true).value_or(config.varianceKappa);
    config.skipRatio = reader.Number("skip_ratio", 0.0, 1.0, false).value_or(0.0);
    config.skipWindow = reader.Count("skip_window", 1, 1000).value_or(config.skipWindow);
    config.maxStaleness =
        uint32_t(reader.Count("max_staleness", 0, 1000).value_or(config.maxStaleness));
    config.rungSchedule = ParseRungSchedule(reader, rungs);
    return config;
}

} // namespace fedran::control
