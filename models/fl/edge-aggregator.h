#ifndef FEDRAN_MODELS_FL_EDGE_AGGREGATOR_H
#define FEDRAN_MODELS_FL_EDGE_AGGREGATOR_H

// An edge aggregator (network.hubs[].aggregator) without ns-3: a server toward the sites and
// aggregators behind its hub, a client toward its parent (the next aggregator up, or the
// cloud server). For each model its parent sends, it runs `edge_rounds` rounds of its own
// tier (an episodic RoundCoordinator: selection, deadline and the same aggregation rule as
// the server), then sends one update, edge model - the model it received, encoded with its
// own uplink codec and weighted by the samples of every site in its subtree (HierFAVG,
// Liu et al., ICC 2020). FlEdgeApp is the ns-3 host.

#include "compression/codec-spec.h"
#include "models/fl/codec-bank.h"
#include "models/fl/federated-task.h"
#include "models/fl/round-coordinator.h"
#include "models/fl/trace-records.h"
#include "models/fl/update-frame.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fedran
{

/// One edge round of one aggregator: a row of edge_rounds.csv.
struct EdgeRoundRecord
{
    uint32_t hub = 0;       ///< the aggregator's index among the hubs
    uint32_t round = 0;     ///< the parent's round whose model the episode started from
    uint32_t edgeRound = 0; ///< 1 .. edge_rounds within that episode
    double startS = 0.0;
    double endS = 0.0;
    uint32_t selected = 0;
    uint32_t participants = 0;
    uint64_t uplinkBytes = 0;   ///< update frames that arrived from its children
    uint64_t downlinkBytes = 0; ///< model frames it sent its children
};

struct EdgeAggregatorConfig
{
    uint32_t hub = 0;            ///< index among the hubs (records)
    uint32_t id = 0;             ///< the child id it joins its parent with
    uint32_t subtreeSamples = 1; ///< its update's weight: the samples of its subtree's sites
    uint32_t edgeRounds = 1;
    /// Its own tier: clientsPerRound, deadline, expected children, the codec of its model
    /// frames (downlinkCodec) and its aggregating children (episodic is set by the class).
    CoordinatorConfig tier;
    CodecSpec parentDownlinkCodec; ///< how the parent's model frames are encoded
    CodecSpec uplinkCodec;         ///< its own update's codec
};

/// What the aggregator asks of its ns-3 host besides a coordinator host's duties.
class EdgeHost : public CoordinatorHost
{
  public:
    /// The tier's children joined (or its join timeout fired): time to join the parent.
    virtual void ReadyForParent() = 0;
    virtual void SendToParent(std::vector<uint8_t> frame) = 0;
    virtual void EdgeRoundEnded(const EdgeRoundRecord& record) = 0;
};

class EdgeAggregator : private CoordinatorHost
{
  public:
    EdgeAggregator(EdgeAggregatorConfig config,
                   std::shared_ptr<const FederatedTask> task,
                   EdgeHost& host);
    ~EdgeAggregator();

    // Toward the children (as a server).
    void Start();
    void Stop();
    bool Admits(uint32_t child) const;
    void OnChildJoin(uint32_t child);
    void OnChildLost(uint32_t child, UpdateFate fate, const std::string& why);
    std::optional<std::string> OnChildFrame(const Frame& frame);
    void OnTimer(CoordinatorTimer timer);

    // Toward the parent (as a client).
    /// The join frame of a new connection to the parent.
    std::vector<uint8_t> BeginParentConnection();
    /// A frame from the parent; returns why it breaks the protocol, or nothing.
    std::optional<std::string> OnParentFrame(const Frame& frame);

    uint32_t Id() const
    {
        return m_config.id;
    }

  private:
    // CoordinatorHost of the tier: passed on to the EdgeHost, with the edge round's counts.
    double NowSeconds() const override;
    void Send(uint32_t client, std::vector<uint8_t> frame) override;
    void ArmTimer(CoordinatorTimer timer, int64_t delayTicks) override;
    void CancelTimer(CoordinatorTimer timer) override;
    uint32_t DrawInteger(uint32_t lo, uint32_t hi) override;
    void JoinClosed(uint32_t joined, uint32_t expected) override;
    void RoundStarted(uint32_t round, const std::vector<uint32_t>& selected) override;
    void FrameSent(uint32_t round,
                   uint32_t client,
                   uint64_t frameBytes,
                   const std::string& downlinkCodec) override;
    void UpdateArrived(const UpdateArrivalRecord& record) override;
    void RoundEnded(const RoundRecord& record) override;
    void Finished() override;
    void EpisodeEnded() override;

    EdgeAggregatorConfig m_config;
    std::shared_ptr<const FederatedTask> m_task;
    EdgeHost& m_host;
    std::unique_ptr<RoundCoordinator> m_tier;
    /// Toward the parent: its model frames' decoder and this aggregator's update encoder.
    CodecBank m_parentCodecs;
    Rng m_codecRng;
    /// The model the parent sent for the running episode (empty between episodes: an
    /// aggregator holds the model only while its subtree trains).
    std::vector<float> m_received;
    uint32_t m_parentRound = 0;
    uint32_t m_edgeRound = 0; ///< within the episode
    uint32_t m_selected = 0;
    uint64_t m_uplinkBytes = 0;
    uint64_t m_downlinkBytes = 0;
};

} // namespace fedran

#endif
