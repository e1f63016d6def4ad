#include "compression/codec.h"
#include "compression/cost-model.h"
#include "compression/internal/codecs.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fedran
{

namespace
{

struct CodecEntry
{
    std::string_view name;
    uint16_t id; ///< written into every frame: never renumber or reuse one, only append
    internal::CodecFactory factory;
    CodecTraits traits;
    /// Its cost model (cost-model.h): the terms its encode and decode seconds depend on, and
    /// the specs `fedran calibrate` times to fit them (a JSON array; wrappers over "none",
    /// whose cost is taken off; empty: the codec's own work is nil, as a ladder's).
    uint32_t costTerms;
    std::string_view calibration;
};

constexpr uint32_t kN = kCostElements;
constexpr uint32_t kNB = kCostElements | kCostBytes;
constexpr uint32_t kNR = kCostElements | kCostBytes | kCostRankElements;

// What each codec can do (CodecTraits, in its order: why unsplittable, the keys that turn its
// step mode off, may bring its own aggregator, why not a rung, adaptive, state models, how
// secure aggregation sums it); most can do all a plain codec does.
constexpr CodecTraits kPlain{"", "", false, "", false, 0, MaskedSum::NotComposed};
constexpr CodecTraits kDense{"", "", false, "", false, 0, MaskedSum::Dense};
constexpr CodecTraits kOwnSupport{"", "", false, "", false, 0, MaskedSum::OwnSupport};
constexpr CodecTraits kRandomK{
    "its draws are keyed to each tensor's position in the whole update, so a bucket would "
    "keep other elements than the update does",
    "",
    false,
    "",
    false,
    0,
    MaskedSum::SharedRandom};
constexpr CodecTraits kSign{"", "", true, "", false, 0, MaskedSum::Dense};
constexpr CodecTraits kErrorFeedback{"", "", false, "", false, 1, MaskedSum::NotComposed};
constexpr CodecTraits kDgc{"", R"({"mode": "round"})", false, "", false, 2, MaskedSum::OwnSupport};
constexpr CodecTraits kPowerSgd{
    "its two exchanges need the whole update (the server's orthonormalisation spans every "
    "tensor)",
    "",
    false,
    "its round takes two exchanges, which the rate controller does not budget for",
    false,
    0,
    MaskedSum::NotComposed};
constexpr CodecTraits kAdaptive{"it picks one rung (or a skip) for the whole update",
                                "",
                                false,
                                "a ladder rung cannot itself be adaptive",
                                true,
                                0,
                                MaskedSum::NotComposed};

// The registry: one line per codec (name, frame id, factory, traits, cost model).
constexpr CodecEntry kCodecs[] = {
    {"none", 1, &internal::MakeNoneCodec, kDense, kN, R"([{"type": "none"}])"},
    {"fp16", 2, &internal::MakeFp16Codec, kDense, kN, R"([{"type": "fp16"}])"},
    {"top_k",
     10,
     &internal::MakeTopKCodec,
     kOwnSupport,
     kNB,
     R"([{"type": "top_k", "ratio": 0.01}, {"type": "top_k", "ratio": 0.1}])"},
    {"random_k",
     11,
     &internal::MakeRandomKCodec,
     kRandomK,
     kNB,
     R"([{"type": "random_k", "ratio": 0.01}, {"type": "random_k", "ratio": 0.1}])"},
    {"threshold",
     12,
     &internal::MakeThresholdCodec,
     kOwnSupport,
     kNB,
     R"([{"type": "threshold", "threshold": 0.5}, {"type": "threshold", "threshold": 2.0}])"},
    {"quantization",
     20,
     &internal::MakeQuantizationCodec,
     kDense,
     kNB,
     R"([{"type": "quantization", "bits": 2}, {"type": "quantization", "bits": 8}])"},
    {"qsgd",
     21,
     &internal::MakeQsgdCodec,
     kDense,
     kNB,
     R"([{"type": "qsgd", "levels": 4}, {"type": "qsgd", "levels": 256}])"},
    {"sign", 22, &internal::MakeSignCodec, kSign, kN, R"([{"type": "sign"}])"},
    {"error_feedback",
     30,
     &internal::MakeErrorFeedbackCodec,
     kErrorFeedback,
     kN,
     R"([{"type": "error_feedback", "base": {"type": "none"}}])"},
    {"clipped",
     31,
     &internal::MakeClippedCodec,
     kPlain,
     kN,
     R"([{"type": "clipped", "base": {"type": "none"}, "clip_value": 1.0}])"},
    {"dgc",
     32,
     &internal::MakeDgcCodec,
     kDgc,
     kNB,
     R"([{"type": "dgc", "mode": "round", "ratio": 0.001, "warmup_rounds": 0},
         {"type": "dgc", "mode": "round", "ratio": 0.01, "warmup_rounds": 0}])"},
    {"power_sgd",
     40,
     &internal::MakePowerSgdCodec,
     kPowerSgd,
     kNR,
     R"([{"type": "power_sgd", "rank": 1}, {"type": "power_sgd", "rank": 4}])"},
    {"adaptive", 41, &internal::MakeAdaptiveCodec, kAdaptive, 0, ""},
};

constexpr bool
EntriesAreUnique()
{
    for (size_t i = 0; i < std::size(kCodecs); ++i)
    {
        for (size_t j = i + 1; j < std::size(kCodecs); ++j)
        {
            if (kCodecs[i].name == kCodecs[j].name || kCodecs[i].id == kCodecs[j].id)
            {
                return false;
            }
        }
    }
    return true;
}

static_assert(EntriesAreUnique(), "codec names and wire ids must be unique");

/// Codec types registered at run time (internal::CodecRegistration): a test's, or a user's
/// out-of-tree codec. Registration happens during static initialisation, before any lookup.
std::vector<CodecEntry>&
Extensions()
{
    static std::vector<CodecEntry> extensions;
    return extensions;
}

/// Every entry: the table's, then the extensions in registration order.
std::vector<const CodecEntry*>
AllEntries()
{
    std::vector<const CodecEntry*> entries;
    for (const CodecEntry& entry : kCodecs)
    {
        entries.push_back(&entry);
    }
    for (const CodecEntry& entry : Extensions())
    {
        entries.push_back(&entry);
    }
    return entries;
}

const CodecEntry*
FindEntry(std::string_view name)
{
    for (const CodecEntry* entry : AllEntries())
    {
        if (entry->name == name)
        {
            return entry;
        }
    }
    return nullptr;
}

std::string
JoinPath(std::string_view path, std::string_view key)
{
    return path.empty() ? std::string(key) : std::string(path) + "." + std::string(key);
}

std::string
KnownNames()
{
    std::string names;
    for (const CodecEntry* entry : AllEntries())
    {
        names += (names.empty() ? "" : ", ") + std::string(entry->name);
    }
    return names;
}

} // namespace

namespace internal
{

CodecArgs::CodecArgs(std::string_view name,
                     uint16_t id,
                     const nlohmann::json& spec,
                     const std::string& path)
    : m_name(name)
    , m_id(id)
    , m_spec(spec)
    , m_path(path)
{
}

const nlohmann::json*
CodecArgs::Take(const std::string& key)
{
    m_taken.insert(key);
    const auto it = m_spec.find(key);
    return it == m_spec.end() ? nullptr : &*it;
}

std::string
CodecArgs::PathOf(std::string_view key) const
{
    return JoinPath(m_path, key);
}

void
CodecArgs::Fail(std::string_view key, const std::string& message) const
{
    throw CodecConfigError(PathOf(key) + ": " + message);
}

void
CodecArgs::RejectUnknownKeys() const
{
    for (const auto& item : m_spec.items())
    {
        if (item.key() != "type" && !m_taken.contains(item.key()))
        {
            Fail(item.key(), "unknown key for codec '" + std::string(m_name) + "'");
        }
    }
}

} // namespace internal

namespace internal
{

BuiltCodec
BuildCodec(const nlohmann::json& spec, const std::string& path)
{
    if (!spec.is_object())
    {
        throw CodecConfigError((path.empty() ? "codec" : path) +
                               ": codec spec must be an object with a \"type\", got " +
                               spec.type_name());
    }
    const auto type = spec.find("type");
    if (type == spec.end())
    {
        throw CodecConfigError(JoinPath(path, "type") + ": missing (known: " + KnownNames() + ")");
    }
    if (!type->is_string())
    {
        throw CodecConfigError(JoinPath(path, "type") + ": must be a string, got " +
                               type->type_name());
    }
    const auto& name = type->get_ref<const std::string&>();
    if (const CodecEntry* entry = FindEntry(name))
    {
        internal::CodecArgs args(entry->name, entry->id, spec, path);
        auto codec = entry->factory(args);
        args.RejectUnknownKeys();
        return {std::move(codec), &entry->traits, args.TakeChildren()};
    }
    throw CodecConfigError(JoinPath(path, "type") + ": unknown codec '" + name +
                           "' (known: " + KnownNames() + ")");
}

} // namespace internal

const CodecTraits&
CodecTypeTraits(std::string_view type)
{
    if (const CodecEntry* entry = FindEntry(type))
    {
        return entry->traits;
    }
    throw CodecConfigError("unknown codec '" + std::string(type) + "' (known: " + KnownNames() +
                           ")");
}

std::vector<std::string>
CodecTypeNames()
{
    std::vector<std::string> names;
    for (const CodecEntry* entry : AllEntries())
    {
        names.emplace_back(entry->name);
    }
    return names;
}

CostModelDeclaration
CodecCostModel(std::string_view type)
{
    if (const CodecEntry* entry = FindEntry(type))
    {
        return {entry->costTerms,
                entry->calibration.empty()
                    ? nlohmann::json::array()
                    : nlohmann::json::parse(entry->calibration.begin(), entry->calibration.end())};
    }
    throw CodecConfigError("unknown codec '" + std::string(type) + "'");
}

namespace internal
{

CodecRegistration::CodecRegistration(std::string_view name,
                                     uint16_t id,
                                     CodecFactory factory,
                                     CodecTraits traits,
                                     uint32_t costTerms,
                                     std::string_view calibration)
{
    for (const CodecEntry* entry : AllEntries())
    {
        if (entry->name == name || entry->id == id)
        {
            throw std::logic_error("codec registration \"" + std::string(name) + "\" (id " +
                                   std::to_string(id) + "): the name or id is taken by \"" +
                                   std::string(entry->name) + "\"");
        }
    }
    Extensions().push_back({name, id, factory, traits, costTerms, calibration});
}

} // namespace internal

} // namespace fedran
