#include "compression/cost-model.h"

#include "compression/codec-spec.h"
#include "compression/codec.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace fedran
{

extern const std::string_view kReferenceProfileText; // reference-profile.cc, generated

namespace
{

constexpr std::string_view kFormat = "fedran-cost-profile";

[[noreturn]] void
Fail(const std::string& path, const std::string& message)
{
    throw CostProfileError(path + ": " + message);
}

const nlohmann::json&
RequireObject(const nlohmann::json& json, const std::string& key, const std::string& path)
{
    const auto it = json.find(key);
    if (it == json.end())
    {
        Fail(path, "missing");
    }
    if (!it->is_object())
    {
        Fail(path, std::string("must be an object, got ") + it->type_name());
    }
    return *it;
}

double
ReadSeconds(const nlohmann::json& json, const std::string& key, const std::string& path)
{
    const auto it = json.find(key);
    if (it == json.end())
    {
        Fail(path, "missing");
    }
    if (!it->is_number())
    {
        Fail(path, std::string("must be a number, got ") + it->type_name());
    }
    const double value = it->get<double>();
    if (!std::isfinite(value) || value < 0.0)
    {
        Fail(path, "must be a finite number >= 0, got " + it->dump());
    }
    return value;
}

void
RejectUnknown(const nlohmann::json& json,
              std::initializer_list<std::string_view> known,
              const std::string& path)
{
    for (const auto& item : json.items())
    {
        bool found = false;
        for (std::string_view key : known)
        {
            found = found || key == item.key();
        }
        if (!found)
        {
            Fail(path + "." + item.key(), "unknown key");
        }
    }
}

LinearCost
ReadLinear(const nlohmann::json& json, const std::string& path)
{
    RejectUnknown(json, {"fixed_s", "per_element_s", "per_byte_s", "per_rank_element_s"}, path);
    LinearCost cost;
    // Terms a codec's cost does not depend on may be left out.
    auto optional = [&](const char* key, double& out) {
        if (json.contains(key))
        {
            out = ReadSeconds(json, key, path + "." + key);
        }
    };
    optional("fixed_s", cost.fixedS);
    optional("per_element_s", cost.perElementS);
    optional("per_byte_s", cost.perByteS);
    optional("per_rank_element_s", cost.perRankElementS);
    return cost;
}

nlohmann::json
LinearJson(const LinearCost& cost)
{
    return {{"fixed_s", cost.fixedS},
            {"per_element_s", cost.perElementS},
            {"per_byte_s", cost.perByteS},
            {"per_rank_element_s", cost.perRankElementS}};
}

} // namespace

const CostProfile&
CostProfile::Reference()
{
    static const CostProfile profile =
        FromJson(nlohmann::json::parse(kReferenceProfileText.begin(), kReferenceProfileText.end()));
    return profile;
}

CostProfile
CostProfile::FromJson(const nlohmann::json& json)
{
    if (!json.is_object())
    {
        Fail("profile", std::string("must be an object, got ") + json.type_name());
    }
    RejectUnknown(json, {"format", "version", "machine", "server", "codecs"}, "profile");
    const auto format = json.find("format");
    if (format == json.end() || *format != kFormat)
    {
        Fail("format", "must be \"" + std::string(kFormat) + "\"");
    }
    const auto version = json.find("version");
    if (version == json.end() || *version != 1)
    {
        Fail("version", "must be 1");
    }
    CostProfile profile;
    profile.machine = RequireObject(json, "machine", "machine");
    const nlohmann::json& server = RequireObject(json, "server", "server");
    RejectUnknown(server,
                  {"fold_per_element_s", "apply_per_element_s", "flop_s", "rules"},
                  "server");
    profile.foldPerElementS =
        ReadSeconds(server, "fold_per_element_s", "server.fold_per_element_s");
    profile.applyPerElementS =
        ReadSeconds(server, "apply_per_element_s", "server.apply_per_element_s");
    profile.flopS = ReadSeconds(server, "flop_s", "server.flop_s");
    if (server.contains("rules"))
    {
        const nlohmann::json& rules = RequireObject(server, "rules", "server.rules");
        for (const auto& item : rules.items())
        {
            profile.ruleWorkS.emplace(item.key(),
                                      ReadSeconds(rules, item.key(), "server.rules." + item.key()));
        }
    }

    const nlohmann::json& codecs = RequireObject(json, "codecs", "codecs");
    const std::vector<std::string> names = CodecTypeNames();
    for (const auto& item : codecs.items())
    {
        if (std::find(names.begin(), names.end(), item.key()) == names.end())
        {
            Fail("codecs." + item.key(), "not a codec type");
        }
    }
    for (const std::string& name : names)
    {
        const std::string path = "codecs." + name;
        const nlohmann::json& entry = RequireObject(codecs, name, path);
        RejectUnknown(entry, {"encode", "decode", "reply", "close"}, path);
        CodecCost cost;
        cost.encode =
            ReadLinear(RequireObject(entry, "encode", path + ".encode"), path + ".encode");
        cost.decode =
            ReadLinear(RequireObject(entry, "decode", path + ".decode"), path + ".decode");
        if (entry.contains("reply"))
        {
            cost.reply =
                ReadLinear(RequireObject(entry, "reply", path + ".reply"), path + ".reply");
        }
        if (entry.contains("close"))
        {
            cost.close =
                ReadLinear(RequireObject(entry, "close", path + ".close"), path + ".close");
        }
        profile.codecs.emplace(name, cost);
    }
    return profile;
}

nlohmann::json
CostProfile::ToJson() const
{
    nlohmann::json codecsJson = nlohmann::json::object();
    for (const auto& [name, cost] : codecs)
    {
        codecsJson[name] = {{"encode", LinearJson(cost.encode)},
                            {"decode", LinearJson(cost.decode)},
                            {"reply", LinearJson(cost.reply)},
                            {"close", LinearJson(cost.close)}};
    }
    nlohmann::json serverJson = {{"fold_per_element_s", foldPerElementS},
                                 {"apply_per_element_s", applyPerElementS},
                                 {"flop_s", flopS}};
    if (!ruleWorkS.empty())
    {
        serverJson["rules"] = nlohmann::json(ruleWorkS);
    }
    return {{"format", kFormat},
            {"version", 1},
            {"machine", machine},
            {"server", serverJson},
            {"codecs", codecsJson}};
}

const CodecCost&
CostProfile::Codec(std::string_view type) const
{
    const auto it = codecs.find(type);
    if (it == codecs.end())
    {
        throw CostProfileError("codecs." + std::string(type) + ": missing");
    }
    return it->second;
}

} // namespace fedran
