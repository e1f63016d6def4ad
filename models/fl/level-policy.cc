#include "models/fl/level-policy.h"

#include "compression/codec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace fedran::control
{

namespace
{

constexpr uint32_t kBucket = 512;
constexpr uint32_t kQsgdDefaultLevels = 16; ///< compression/codecs/qsgd-codec.cc

std::optional<LevelRule>
RuleOf(const nlohmann::json& spec)
{
    if (!spec.is_object() || spec.value("type", "") != "adaptive")
    {
        return std::nullopt;
    }
    const auto policy = spec.find("policy");
    if (policy == spec.end() || !policy->is_string())
    {
        return std::nullopt;
    }
    if (*policy == "dadaquant")
    {
        return LevelRule::Dadaquant;
    }
    if (*policy == "adaquantfl")
    {
        return LevelRule::Adaquantfl;
    }
    if (*policy == "adagq")
    {
        return LevelRule::Adagq;
    }
    return std::nullopt;
}

/// An integer key in [lo, hi], or nullopt when absent. Throws CodecConfigError.
std::optional<uint32_t>
Count(const nlohmann::json& spec,
      const std::string& path,
      const char* key,
      uint32_t lo,
      uint32_t hi)
{
    const auto it = spec.find(key);
    if (it == spec.end())
    {
        return std::nullopt;
    }
    if (!it->is_number_integer() || it->get<int64_t>() < int64_t(lo) ||
        it->get<int64_t>() > int64_t(hi))
    {
        throw CodecConfigError(path + "." + key + ": must be an integer in [" + std::to_string(lo) +
                               ", " + std::to_string(hi) + "], got " + it->dump());
    }
    return it->get<uint32_t>();
}

/// A number in (lo, hi], or nullopt when absent. Throws CodecConfigError.
std::optional<double>
Number(const nlohmann::json& spec, const std::string& path, const char* key, double lo, double hi)
{
    const auto it = spec.find(key);
    if (it == spec.end())
    {
        return std::nullopt;
    }
    if (!it->is_number() || !(it->get<double>() > lo) || it->get<double>() > hi)
    {
        throw CodecConfigError(path + "." + key + ": must be a number in (" + std::to_string(lo) +
                               ", " + std::to_string(hi) + "], got " + it->dump());
    }
    return it->get<double>();
}

/// The keys' values, defaults filled in; `rounds` 0 leaves phi at 1 (the ladder needs none).
LevelPolicyConfig
ReadKeys(const nlohmann::json& spec, const std::string& path, LevelRule rule, uint32_t rounds)
{
    LevelPolicyConfig config;
    config.rule = rule;
    DadaquantConfig& d = config.dadaquant;
    d.psi = Number(spec, path, "psi", 0.0, 1.0).value_or(d.psi);
    if (d.psi >= 1.0)
    {
        throw CodecConfigError(path + ".psi: must be below 1 (the new estimate's weight is " +
                               "1 - psi)");
    }
    d.phi = Count(spec, path, "phi", 1, UINT32_MAX).value_or(DadaquantDefaultPhi(rounds));
    d.qMin = Count(spec, path, "q_min", 1, 1u << 20).value_or(d.qMin);
    d.qMax = Count(spec, path, "q_max", 1, 1u << 20).value_or(d.qMax);
    if (d.qMax < d.qMin)
    {
        throw CodecConfigError(path + ".q_max: must be at least q_min (" + std::to_string(d.qMin) +
                               ")");
    }
    config.s0 = Count(spec, path, "s0", 1, 1u << 20).value_or(config.s0);
    config.lambdaG = Number(spec, path, "lambda_g", 0.0, 1e6).value_or(config.lambdaG);
    config.maxBits = Count(spec, path, "max_bits", 1, 8).value_or(config.maxBits);
    // The paper starts at 8 bits; a narrower ladder starts at its top.
    config.startBits =
        Count(spec, path, "start_bits", 1, 8).value_or(std::min(config.startBits, config.maxBits));
    if (config.startBits > config.maxBits)
    {
        throw CodecConfigError(path + ".start_bits: must be at most max_bits (" +
                               std::to_string(config.maxBits) + ")");
    }
    return config;
}

/// The top of the ladder the policy builds.
uint32_t
MaxLevel(const nlohmann::json& spec, const std::string& path, const LevelPolicyConfig& config)
{
    const uint32_t fallback =
        config.rule == LevelRule::Dadaquant ? std::min(4 * config.dadaquant.qMax, 255u) : 32;
    return Count(spec, path, "max_level", 1, 255).value_or(fallback);
}

} // namespace

bool
IsLevelPolicy(const nlohmann::json& spec)
{
    return RuleOf(spec).has_value();
}

nlohmann::json
WithLevelLadder(const nlohmann::json& spec)
{
    const std::optional<LevelRule> rule = RuleOf(spec);
    if (!rule || spec.contains("ladder"))
    {
        return spec;
    }
    uint32_t top = 32;
    uint32_t maxBits = 8;
    try
    {
        const LevelPolicyConfig config = ReadKeys(spec, "", *rule, 0);
        top = MaxLevel(spec, "", config);
        maxBits = config.maxBits;
    }
    catch (const CodecConfigError&)
    {
        // ParseLevelPolicy reports it; the default ladder lets the spec be read meanwhile.
    }
    nlohmann::json out = spec;
    nlohmann::json ladder = nlohmann::json::array();
    if (*rule == LevelRule::Adagq)
    {
        // b bits per element carry the levels s = 2^b - 1 (halving s is one bit less).
        for (uint32_t bits = maxBits; bits >= 1; --bits)
        {
            ladder.push_back({{"type", "qsgd"}, {"levels", (1u << bits) - 1}, {"bucket", kBucket}});
        }
        out["ladder"] = std::move(ladder);
        return out;
    }
    for (uint32_t level = top; level >= 1; --level)
    {
        ladder.push_back({{"type", "qsgd"}, {"levels", level}, {"bucket", kBucket}});
    }
    out["ladder"] = std::move(ladder);
    return out;
}

LevelPolicyConfig
ParseLevelPolicy(const nlohmann::json& spec, const std::string& path, uint32_t rounds)
{
    const std::optional<LevelRule> rule = RuleOf(spec);
    if (!rule)
    {
        throw CodecConfigError(path + ".policy: not a level policy");
    }
    LevelPolicyConfig config = ReadKeys(spec, path, *rule, rounds);
    MaxLevel(spec, path, config); // checks max_level, which only shapes a built ladder
    const auto ladder = spec.find("ladder");
    if (ladder == spec.end() || !ladder->is_array() || ladder->empty())
    {
        throw CodecConfigError(path + ".ladder: a level policy needs a ladder of qsgd rungs");
    }
    for (size_t r = 0; r < ladder->size(); ++r)
    {
        const nlohmann::json& rung = (*ladder)[r];
        if (!rung.is_object() || rung.value("type", "") != "qsgd")
        {
            throw CodecConfigError(path + ".ladder[" + std::to_string(r) +
                                   "]: a level policy's rungs must be qsgd (it chooses levels)");
        }
        config.rungLevels.push_back(rung.value("levels", kQsgdDefaultLevels));
    }
    for (size_t r = 1; r < config.rungLevels.size(); ++r)
    {
        if (config.rungLevels[r] >= config.rungLevels[r - 1])
        {
            throw CodecConfigError(path + ".ladder[" + std::to_string(r) +
                                   "]: a level policy's rungs must have falling levels "
                                   "(most faithful first)");
        }
    }
    return config;
}

size_t
RungForLevel(std::span<const uint32_t> rungLevels, uint32_t level)
{
    size_t rung = 0;
    for (size_t r = 0; r < rungLevels.size(); ++r)
    {
        if (rungLevels[r] >= level)
        {
            rung = r;
        }
    }
    return rung;
}

ServerLevelPolicy::ServerLevelPolicy(LevelPolicyConfig config)
    : m_config(std::move(config))
{
    switch (m_config.rule)
    {
        case LevelRule::Dadaquant:
            m_dadaquant.emplace(m_config.dadaquant);
            m_level = m_dadaquant->Level();
            break;
        case LevelRule::Adaquantfl:
            m_adaquantfl.emplace(m_config.s0,
                                 m_config.rungLevels.empty() ? m_config.s0
                                                             : m_config.rungLevels.front());
            m_level =
                std::min(m_config.s0,
                         m_config.rungLevels.empty() ? m_config.s0 : m_config.rungLevels.front());
            break;
        case LevelRule::Adagq:
            m_adagq.emplace(
                AdagqServerConfig{m_config.lambdaG, m_config.startBits, m_config.maxBits});
            m_level = (1u << m_config.startBits) - 1;
            break;
    }
}

std::vector<uint32_t>
ServerLevelPolicy::Assign(std::span<const uint32_t> samples,
                          std::span<const uint32_t> clients,
                          double startS)
{
    const uint32_t cap = m_config.rungLevels.empty() ? m_level : m_config.rungLevels.front();
    if (m_adagq)
    {
        std::vector<uint32_t> levels = m_adagq->Assign(clients, startS);
        for (uint32_t& level : levels)
        {
            level = std::min((1u << level) - 1, cap); // the width's level, s = 2^b - 1
        }
        return levels;
    }
    if (m_dadaquant)
    {
        const std::vector<double> weights(samples.begin(), samples.end());
        return DadaquantClientLevels(weights, m_level, cap);
    }
    return std::vector<uint32_t>(samples.size(), std::min(m_level, cap));
}

void
ServerLevelPolicy::LossReported(uint32_t samples, double loss)
{
    if (std::isfinite(loss) && samples > 0)
    {
        m_lossSum += double(samples) * loss;
        m_weightSum += double(samples);
    }
}

void
ServerLevelPolicy::UpdateArrived(uint32_t client, uint64_t frameBytes, double arrivalS)
{
    if (m_adagq)
    {
        m_adagq->UpdateArrived(client, frameBytes, arrivalS);
    }
}

void
ServerLevelPolicy::RoundClosed(double aggregateNorm)
{
    if (m_adagq)
    {
        m_adagq->RoundClosed(m_weightSum > 0.0 ? m_lossSum / m_weightSum : NAN, aggregateNorm);
        m_level = (1u << uint32_t(std::lround(m_adagq->MeanBits()))) - 1;
    }
    if (m_weightSum > 0.0)
    {
        const double estimate = m_lossSum / m_weightSum;
        if (m_dadaquant)
        {
            m_level = m_dadaquant->Next(estimate);
        }
        if (m_adaquantfl)
        {
            m_level = m_adaquantfl->Next(estimate);
        }
    }
    m_lossSum = 0.0;
    m_weightSum = 0.0;
}

} // namespace fedran::control
