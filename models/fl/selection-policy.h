#ifndef FEDRAN_MODELS_FL_SELECTION_POLICY_H
#define FEDRAN_MODELS_FL_SELECTION_POLICY_H

// Which idle clients the server selects for a synchronous round (server.selection). The round
// coordinator keeps what it has measured of every client (ClientLedger: round durations, upload
// times, reported losses, when it was last selected) and asks the policy for
// ceil(over_select x clients_per_round) of the idle ones each round.
//
// Adding a policy is one file plus two lines: implement SelectionPolicy in
// models/fl/selection/<name>-selection.cc with a `std::unique_ptr<SelectionPolicy>
// Make<Name>Selection(RuleArgs&, const SelectionContext&)` that reads its own keys (all of them
// before it refuses any setting, as an aggregation rule's factory does) and refuses
// inadmissible ones with RuleArgs::Fail; then, in models/fl/selection-policy.cc, declare it and
// add its row {"<name>", Make<Name>Selection, SelectionTraits{...}} to kSelectionPolicies.
// Policies are ns-3-free and deterministic: "random" draws from the server's sampling stream
// (today's draws), every other policy from its own stream of the run seed
// (kSelectionStream), and the coordinator calls them from one thread at round starts only.

#include "compression/rng.h"
#include "models/fl/rule-args.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fedran
{

/// The run seed's stream of the selection policies other than "random".
constexpr uint64_t kSelectionStream = 10ull << 32;

/// What a client's path to the server can carry now, in bits/s each way: the bottleneck of its
/// links as their models state it (0: a link of it is out).
struct PathRate
{
    double downBps = 0.0;
    double upBps = 0.0;
};

/// What the server has measured of one client (NaN or 0: not yet).
struct ClientRecord
{
    uint32_t samples = 0;      ///< its data size (the FedAvg weight it sends)
    uint32_t lastSelected = 0; ///< the round it was last selected in (0: never)
    uint32_t timesSelected = 0;
    uint32_t lastCompleted = 0; ///< the round of its last accepted update (0: none)
    double selectedAtS = 0.0;   ///< when the round it was last selected in started
    /// Round start to its update's last byte at the server, of its last accepted update.
    double durationS = std::numeric_limits<double>::quiet_NaN();
    /// The exponentially weighted mean of durationS, half weight on the newest
    /// (kDurationWeight).
    double meanDurationS = std::numeric_limits<double>::quiet_NaN();
    /// Round start to its update's first byte at the server (download, compute, encode).
    double preUploadS = std::numeric_limits<double>::quiet_NaN();
    /// Its update's first to last byte at the server; NaN when the host does not say when
    /// the first byte arrived (unit tests).
    double uploadS = std::numeric_limits<double>::quiet_NaN();
    uint64_t updateBytes = 0; ///< the frame of its last accepted update
    uint64_t modelBytes = 0;  ///< the model frame last sent to it (a poll's included)
    /// Its path's downlink capacity when it was last selected (NaN: not known).
    double selectedDownBps = std::numeric_limits<double>::quiet_NaN();
    /// Its compute and encoding time: preUploadS less the model's download at
    /// selectedDownBps, exponentially weighted as meanDurationS (NaN: not known).
    double meanComputeS = std::numeric_limits<double>::quiet_NaN();
    /// The loss it reported with its last update (NaN: none yet), and that update's round.
    double loss = std::numeric_limits<double>::quiet_NaN();
    uint32_t lossRound = 0;
};

/// Every client the server has seen, by id.
using ClientLedger = std::map<uint32_t, ClientRecord>;

/// ClientRecord::meanDurationS's weight on the newest measurement.
constexpr double kDurationWeight = 0.5;

/// `client` was selected in `round`, which started at `nowS`, with its path's downlink
/// capacity then (NaN: not known).
void LedgerSelected(ClientLedger& ledger,
                    uint32_t client,
                    uint32_t round,
                    double nowS,
                    double downBps = std::numeric_limits<double>::quiet_NaN());

/// An update of `client` for `round` (accepted or late) arrived whole at `nowS`: its first
/// byte at `firstByteS` (< 0: unknown), `frameBytes` long, with a loss report (NaN: none).
/// Measures nothing unless `round` is the round the client was last selected in.
void LedgerArrived(ClientLedger& ledger,
                   uint32_t client,
                   uint32_t round,
                   double nowS,
                   double firstByteS,
                   uint64_t frameBytes,
                   double loss,
                   bool accepted);

/// What a policy is asked each round.
struct SelectionRequest
{
    uint32_t round = 1;
    std::vector<uint32_t> idle; ///< joined clients with nothing outstanding, in id order
    size_t wanted = 1;          ///< ceil(over_select x clients_per_round)
    uint32_t clientsPerRound = 1;
    double deadlineS = 60.0; ///< server.deadline_s
    const ClientLedger* ledger = nullptr;
    /// A uniform integer in [lo, hi] from the server's sampling stream ("random" only).
    std::function<uint32_t(uint32_t, uint32_t)> drawInteger;
    /// A client's path capacity now, where the host knows it (empty, or nullopt: not known).
    std::function<std::optional<PathRate>(uint32_t)> pathRate;
};

/// A policy's answer: the clients (any order; the coordinator sorts them) and, for a policy
/// that ranks, each one's score (clients.csv selection_score).
struct Selection
{
    std::vector<uint32_t> clients;
    std::map<uint32_t, double> scores;
    /// `clients` are candidates to poll for their loss at the current model (pow-d), not the
    /// round's clients: the coordinator polls them and asks KeepPolled which to keep.
    bool poll = false;
};

/// What a policy is built for.
struct SelectionContext
{
    uint64_t seed = 1; ///< the run seed (the policy's own stream is kSelectionStream)
    uint32_t rounds = 1;
    double deadlineS = 60.0; ///< server.deadline_s
    size_t wanted = 1;       ///< ceil(over_select x clients_per_round)
};

class SelectionPolicy
{
  public:
    virtual ~SelectionPolicy() = default;
    /// min(wanted, idle) distinct clients of request.idle (or, Selection::poll, candidates).
    virtual Selection Select(const SelectionRequest& request) = 0;

    /// A poll's answers are in (loss by client, only those that answered): the round's
    /// clients, at most `wanted`. Only a policy whose Select polls is asked.
    virtual Selection KeepPolled(const std::map<uint32_t, double>& losses, size_t wanted);

    /// How long the coordinator waits for a poll's answers, in seconds.
    virtual double PollTimeoutS() const
    {
        return 0.0;
    }
};

using SelectionFactory = std::unique_ptr<SelectionPolicy> (*)(RuleArgs&, const SelectionContext&);

/// What a policy type needs of the rest of the simulator, declared in its registry row.
struct SelectionTraits
{
    /// Clients append their training loss (a float32, loss-report.h) to every update.
    bool needsLoss = false;
    /// It computes a score per selected client (clients.csv gains selection_score).
    bool scores = true;
    /// It polls candidates for their loss at the current model before each round (pow-d):
    /// clients answer LossPoll frames.
    bool polls = false;
};

/// server.selection read once: its type, its JSON and the path messages name.
struct SelectionSpec
{
    std::string type = "random";
    nlohmann::json json = nlohmann::json{{"type", "random"}};
    std::string path = "server.selection";

    /// Throws RuleConfigError naming `path`.type for a missing or unknown type.
    static SelectionSpec Parse(const nlohmann::json& json, const std::string& path);

    /// The type's traits, as its settings refine them (power_of_choice's variant).
    SelectionTraits Traits() const;

    bool IsRandom() const
    {
        return type == "random";
    }
};

/// Builds the policy `spec` names. Throws RuleConfigError naming the path for a key the
/// policy does not read or a setting it refuses.
std::unique_ptr<SelectionPolicy> MakeSelectionPolicy(const SelectionSpec& spec,
                                                     const SelectionContext& context);

/// Every registered policy type, in registration order.
std::vector<std::string> SelectionPolicyNames();

/// ceil(overSelect x clientsPerRound): how many clients a round selects (at most the idle).
size_t WantedClients(double overSelect, uint32_t clientsPerRound);

/// The `n` largest of `scores` by value, ties by the lower client id (the ranking policies'
/// deterministic cut).
std::vector<uint32_t> TopByScore(const std::map<uint32_t, double>& scores, size_t n);

/// Drops the scores of the clients a policy scored but did not select: clients.csv shows a
/// score only on the rows of selected clients.
void KeepSelectedScores(Selection& selection);

} // namespace fedran

#endif
