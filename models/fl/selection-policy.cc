#include "models/fl/selection-policy.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>

namespace fedran
{

// The policies, one file each in models/fl/selection/.
std::unique_ptr<SelectionPolicy> MakeRandomSelection(RuleArgs& args, const SelectionContext&);
std::unique_ptr<SelectionPolicy> MakeNetworkSelection(RuleArgs& args, const SelectionContext&);
std::unique_ptr<SelectionPolicy> MakeFedCsSelection(RuleArgs& args, const SelectionContext&);
std::unique_ptr<SelectionPolicy> MakeOortSelection(RuleArgs& args, const SelectionContext&);
std::unique_ptr<SelectionPolicy> MakePowerOfChoiceSelection(RuleArgs& args,
                                                            const SelectionContext&);

namespace
{

struct SelectionEntry
{
    std::string_view name;
    SelectionFactory make;
    SelectionTraits traits;
    /// The traits a policy's settings give it, where they depend on them (nullptr: `traits`).
    SelectionTraits (*refine)(const nlohmann::json&, SelectionTraits) = nullptr;
};

/// power_of_choice: rpow-d ranks by the loss reports updates carry; pow-d polls for the loss
/// at the current model instead and needs no report.
SelectionTraits
PowerOfChoiceTraits(const nlohmann::json& json, SelectionTraits traits)
{
    const auto it = json.find("variant");
    if (it != json.end() && it->is_string() && it->get<std::string>() == "pow-d")
    {
        traits.needsLoss = false;
        traits.polls = true;
    }
    return traits;
}

// The registry: one line per policy.
constexpr SelectionEntry kSelectionPolicies[] = {
    {"random", MakeRandomSelection, {.scores = false}},
    {"network", MakeNetworkSelection, {}},
    {"fedcs", MakeFedCsSelection, {}},
    {"oort", MakeOortSelection, {.needsLoss = true}},
    {"power_of_choice", MakePowerOfChoiceSelection, {.needsLoss = true}, PowerOfChoiceTraits},
};

const SelectionEntry*
FindEntry(std::string_view name)
{
    for (const SelectionEntry& entry : kSelectionPolicies)
    {
        if (entry.name == name)
        {
            return &entry;
        }
    }
    return nullptr;
}

std::string
Names()
{
    std::string names;
    for (const SelectionEntry& entry : kSelectionPolicies)
    {
        names.append(names.empty() ? "" : ", ").append(entry.name);
    }
    return names;
}

} // namespace

SelectionSpec
SelectionSpec::Parse(const nlohmann::json& json, const std::string& path)
{
    SelectionSpec spec;
    spec.path = path;
    spec.type = SpecType(json, path);
    spec.json = json;
    if (FindEntry(spec.type) == nullptr)
    {
        throw RuleConfigError(path + ".type: unknown selection policy \"" + spec.type +
                              "\" (one of " + Names() + ")");
    }
    return spec;
}

SelectionTraits
SelectionSpec::Traits() const
{
    const SelectionEntry* entry = FindEntry(type);
    if (entry == nullptr)
    {
        throw RuleConfigError(path + ".type: unknown selection policy \"" + type + "\"");
    }
    return entry->refine ? entry->refine(json, entry->traits) : entry->traits;
}

Selection
SelectionPolicy::KeepPolled(const std::map<uint32_t, double>&, size_t)
{
    throw std::logic_error("KeepPolled: this selection policy does not poll");
}

std::unique_ptr<SelectionPolicy>
MakeSelectionPolicy(const SelectionSpec& spec, const SelectionContext& context)
{
    const SelectionEntry* entry = FindEntry(spec.type);
    if (entry == nullptr)
    {
        throw RuleConfigError(spec.path + ".type: unknown selection policy \"" + spec.type +
                              "\" (one of " + Names() + ")");
    }
    // The aggregation rules' key reader: every key the factory asks for counts as its own.
    RuleSpec keys;
    keys.type = spec.type;
    keys.json = spec.json;
    keys.path = spec.path;
    RuleArgs args(keys, RuleContext{});
    std::exception_ptr refused;
    std::unique_ptr<SelectionPolicy> policy;
    try
    {
        policy = entry->make(args, context);
    }
    catch (const RuleConfigError&)
    {
        refused = std::current_exception(); // a key that is not the policy's is named first
    }
    const std::vector<std::string> unread = args.Unread();
    if (!unread.empty())
    {
        throw RuleConfigError(args.PathOf(unread.front()) + ": not a setting of selection type \"" +
                              spec.type + "\" (docs/selection.md)");
    }
    if (refused)
    {
        std::rethrow_exception(refused);
    }
    return policy;
}

std::vector<std::string>
SelectionPolicyNames()
{
    std::vector<std::string> names;
    for (const SelectionEntry& entry : kSelectionPolicies)
    {
        names.emplace_back(entry.name);
    }
    return names;
}

size_t
WantedClients(double overSelect, uint32_t clientsPerRound)
{
    // The epsilon keeps 1.1 x 10 at 11 despite binary floating point.
    return static_cast<size_t>(std::ceil(overSelect * clientsPerRound - 1e-9));
}

std::vector<uint32_t>
TopByScore(const std::map<uint32_t, double>& scores, size_t n)
{
    std::vector<std::pair<uint32_t, double>> ranked(scores.begin(), scores.end());
    // Stable on the id order of the map: equal scores keep the lower id first.
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        return a.second > b.second;
    });
    std::vector<uint32_t> top;
    for (size_t i = 0; i < ranked.size() && i < n; ++i)
    {
        top.push_back(ranked[i].first);
    }
    return top;
}

void
KeepSelectedScores(Selection& selection)
{
    std::map<uint32_t, double> kept;
    for (uint32_t client : selection.clients)
    {
        const auto it = selection.scores.find(client);
        if (it != selection.scores.end())
        {
            kept.insert(*it);
        }
    }
    selection.scores = std::move(kept);
}

void
LedgerSelected(ClientLedger& ledger, uint32_t client, uint32_t round, double nowS, double downBps)
{
    ClientRecord& record = ledger[client];
    record.lastSelected = round;
    record.selectedAtS = nowS;
    record.selectedDownBps = downBps;
    ++record.timesSelected;
}

void
LedgerArrived(ClientLedger& ledger,
              uint32_t client,
              uint32_t round,
              double nowS,
              double firstByteS,
              uint64_t frameBytes,
              double loss,
              bool accepted)
{
    ClientRecord& record = ledger[client];
    if (round != record.lastSelected || round == 0)
    {
        return; // an older round's update: its start is no longer known
    }
    // A late update measures the client too: how late it was is what a policy must learn.
    record.durationS = nowS - record.selectedAtS;
    record.meanDurationS =
        std::isnan(record.meanDurationS)
            ? record.durationS
            : kDurationWeight * record.durationS + (1.0 - kDurationWeight) * record.meanDurationS;
    if (firstByteS >= 0.0)
    {
        record.preUploadS = firstByteS - record.selectedAtS;
        record.uploadS = nowS - firstByteS;
        if (record.selectedDownBps > 0.0 && record.modelBytes > 0)
        {
            // What the path's capacity says the download took; the rest was compute and
            // encoding (and the queueing the capacity does not see).
            const double computeS = std::max(0.0,
                                             record.preUploadS - 8.0 * double(record.modelBytes) /
                                                                     record.selectedDownBps);
            record.meanComputeS =
                std::isnan(record.meanComputeS)
                    ? computeS
                    : kDurationWeight * computeS + (1.0 - kDurationWeight) * record.meanComputeS;
        }
    }
    record.updateBytes = frameBytes;
    if (!std::isnan(loss))
    {
        record.loss = loss;
        record.lossRound = round;
    }
    if (accepted)
    {
        record.lastCompleted = round;
    }
}

} // namespace fedran
