#ifndef FEDRAN_MODELS_FL_ROUND_COORDINATOR_H
#define FEDRAN_MODELS_FL_ROUND_COORDINATOR_H

// The server's side of synchronous federated learning, without ns-3: which clients have
// joined, who is selected, when a round ends, what becomes of each update, how updates are
// combined and when the model is evaluated. round-coordinator.cc runs the rounds,
// round-arrivals.cc handles the frames clients send, round-close.cc closes a round;
// server-coordinator.h has the events that drive it and the host it acts through.

#include "models/fl/bucket-assembler.h"
#include "models/fl/client-view-encoder.h"
#include "models/fl/downlink-rungs.h"
#include "models/fl/federated-task.h"
#include "models/fl/level-policy.h"
#include "models/fl/local-dp.h"
#include "models/fl/loss-poll.h"
#include "models/fl/secagg/secagg-round.h"
#include "models/fl/selection-policy.h"
#include "models/fl/server-clock.h"
#include "models/fl/server-coordinator.h"
#include "models/fl/server-state.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace fedran
{

/**
 * Synchronous FedAvg rounds. Each round samples ceil(overSelect x clientsPerRound) idle
 * clients, sends each the encoded global model, and aggregates the first clientsPerRound
 * updates that arrive before the deadline; the round closes as soon as it has them (or nobody
 * is outstanding, or at the deadline). A client whose update is still outstanding when a round
 * ends is "late": it is not selected again until that update has arrived (and been
 * discarded). A client lost while selected has "dropped" (peer gone) or "failed" (bad
 * frame); when it joins again it joins afresh. A round without any update leaves the global
 * model as it was.
 *
 * With power_of_choice pow-d a round starts with a poll (round-poll.cc): the model goes to d
 * candidates, their losses come back, and the round's clients are the m highest, told to
 * train from the model they hold; the deadline runs from then.
 *
 * With a two-exchange uplink codec (power_sgd) a round has two phases inside the same
 * deadline: the codec's state goes out before the model, the first payloads are combined once
 * every selected client has sent one (or failed), the codec's message goes back to those
 * clients, and their replies make the update.
 */
class RoundCoordinator : public ServerCoordinator
{
  public:
    RoundCoordinator(CoordinatorConfig config,
                     std::shared_ptr<const FederatedTask> task,
                     CoordinatorHost& host);
    ~RoundCoordinator();

    RoundCoordinator(const RoundCoordinator&) = delete;
    RoundCoordinator& operator=(const RoundCoordinator&) = delete;

    void Start() override;
    void Stop() override;
    bool Admits(uint32_t client) const override;
    void OnJoin(uint32_t client) override;
    void OnClientLost(uint32_t client, UpdateFate fate, const std::string& why) override;
    std::optional<std::string> OnFrame(const Frame& frame) override;
    void OnTimer(CoordinatorTimer timer) override;

    const std::vector<float>& GlobalParams() const override
    {
        return m_state.global;
    }

    /// The server's mirror of `client`'s model (downlink_reference client_view; empty
    /// otherwise): what tests compare with the client's own copy.
    std::span<const float> ClientView(uint32_t client) const
    {
        return m_views.Mirror(client);
    }

    size_t JoinedCount() const
    {
        return m_joined.size();
    }

    /// Episodic tier: runs `rounds` rounds from `model`, then reports EpisodeEnded. An
    /// episode in progress is abandoned (its round ends now, its updates will be late).
    void BeginEpisode(std::span<const float> model, uint32_t rounds);

    /// Episodic tier: whether an episode is running.
    bool InEpisode() const
    {
        return m_round < m_episodeEnd;
    }

  private:
    void HandleUpdate(const Frame& frame);
    void HandleReply(const Frame& frame);
    void HandleCorrupt(const Frame& frame);
    /// A bucket of a layerwise-pipelined update: decoded into the client's partial update,
    /// which is folded in once its last bucket has arrived.
    void HandlePart(const Frame& frame);
    /// The record of an update or reply frame, fate still to be set.
    static UpdateArrivalRecord ArrivalOf(const Frame& frame);
    void DiscardLate(UpdateArrivalRecord record);
    /// Throws DecodeError unless an update or reply frame names the uplink codec and a weight.
    void CheckUplinkFrame(const Frame& frame) const;
    /// Decodes a one-exchange update into the rule (or reuses / omits a skip).
    void AddUpdate(uint32_t client,
                   uint32_t samples,
                   std::span<const uint8_t> payload,
                   UpdateArrivalRecord& record);
    void StartRound();
    /// This round's model payloads (round-downlink.cc): `payloads`, and for each selected
    /// client the index of its payload and the codec its frame uses (clients.csv
    /// downlink_codec). An adaptive downlink chooses a rung per client (downlink-rungs.h).
    void EncodeModels(std::vector<std::vector<uint8_t>>& payloads,
                      std::vector<size_t>& which,
                      std::vector<std::string>& labels);
    /// An adaptive downlink: the update's payload without its download report, which goes to
    /// the client's predictor. Throws DecodeError if there is no room for one.
    std::span<const uint8_t> TakeDownlinkReport(const Frame& frame);
    /// The round's clients are known (sorted): they get the model (or, polled, the word to
    /// train from the one they hold) and the deadline starts.
    void LaunchRound(std::vector<uint32_t> selected);
    /// The model frame's payload for `client` this round (`shared` unless client_view).
    std::vector<uint8_t> ModelPayload(uint32_t client, const std::vector<uint8_t>& shared);
    /// pow-d: sends the model to the candidates and waits for their losses (round-poll.cc).
    void StartPoll(std::vector<uint32_t> candidates);
    /// pow-d: a candidate's answer.
    void HandleLossReply(const Frame& frame);
    /// pow-d: every candidate has answered (or the timeout fired): keeps the highest.
    void ClosePoll();
    void EndRound();
    /// privacy.secure_aggregation (round-secagg.cc): the round's cohort gets the Setup frame.
    void StartSecAgg(std::vector<uint32_t> cohort);
    /// A client's AdvertiseKeys, ShareKeys or UnmaskShares frame.
    std::optional<std::string> HandleSecAggFrame(const Frame& frame);
    /// The current stage has all its answers or timed out: the next stage's frames go out
    /// (after ShareKeys: the relay and the models), or the round ends.
    void CloseSecAggStage();
    /// A masked input (the update frame of a round with secure aggregation).
    void HandleMaskedInput(const Frame& frame, UpdateArrivalRecord& record);
    void ArmSecAggTimer();
    void CancelSecAggTimer();
    /// Two-exchange codecs: combines the first payloads and asks their senders for replies.
    void CloseFirstPhase();
    /// The selection policy's answer (server.selection) for this round's idle clients.
    Selection SampleClients();
    /// Takes a policy's choice as the round's clients: sorted, scores and ledger noted.
    std::vector<uint32_t> AdoptSelection(Selection selection);
    /// What an update frame (accepted or late) tells the selection ledger; `loss` is its loss
    /// report (NaN: none, then it is read from the end of `reports`, the payload without a
    /// download report, if the policy needs it).
    void NoteArrival(const Frame& frame,
                     std::span<const uint8_t> reports,
                     double loss,
                     bool accepted);

    /// Marks a selected client as answered (or failed) and ends the round when none remain.
    void SettleClient(uint32_t client);
    void RemoveClient(uint32_t client, UpdateFate fate, const std::string& why);
    /// `level`: a level policy's QSGD level for the client's update, or adaptive clipping's C
    /// as float32 bits (model frames only: the field that carries an update's weight); `label`
    /// the codec of the model (model frames only).
    void SendToClient(uint32_t client,
                      FrameType type,
                      uint16_t codec,
                      std::span<const uint8_t> payload,
                      uint32_t level = 0,
                      const std::string& label = {});
    /// The first round starts (or, episodic, the join is only reported).
    void CloseJoin();
    void ArmDeadline();
    void CancelDeadline();
    /// Reports the closed round and starts the next (or finishes).
    void ReportRound();
    /// Two-exchange codecs: sends the mid-round message to the contributors.
    void SendPhaseMessages();

    CoordinatorConfig m_config;
    std::shared_ptr<const FederatedTask> m_task;
    CoordinatorHost& m_host;
    ServerState m_state;
    ServerClock m_clock; ///< the server's decoding, folding, applying and evaluating

    ClientViewEncoder m_views; ///< compression.downlink_reference client_view
    BucketAssembler m_buckets; ///< training.pipelining layerwise: buckets so far

    std::set<uint32_t> m_joined;  ///< joined clients, in id order (sampling depends on it)
    std::set<uint32_t> m_busy;    ///< clients whose update for an earlier round is outstanding
    std::set<uint32_t> m_pending; ///< selected this round, not answered yet
    std::vector<uint32_t> m_selected;
    /// server.selection (random in an episodic tier: the tiers select at random).
    std::unique_ptr<SelectionPolicy> m_selection;
    bool m_selectionLoss = false; ///< the policy needs the loss report clients append
    ClientLedger m_ledger;        ///< what the server measured of each client
    std::vector<std::pair<uint32_t, double>> m_scores; ///< the policy's, of m_selected
    LossPoll m_poll;                                   ///< pow-d's poll of the current round
    bool m_pollTimerArmed = false;
    bool m_roundPolled = false; ///< this round's clients hold its model from the poll

    std::vector<uint32_t> m_added; ///< clients whose update went into m_rule, in Add order
    /// Server side of a two-exchange uplink codec (nullptr otherwise: payloads decode alone).
    std::unique_ptr<RoundExchange> m_exchange;
    /// An adaptive downlink's predictors and rule (downlink-rungs.h); nullptr otherwise.
    std::unique_ptr<control::DownlinkRungs> m_downlinkRungs;
    /// A level policy of the uplink (level-policy.h); nullptr otherwise.
    std::unique_ptr<control::ServerLevelPolicy> m_levels;
    /// privacy.dp local: how often each site was selected (its own accountant's steps).
    SiteSelections m_dpSelections;
    /// privacy.secure_aggregation's stages (nullptr without); the round's whole cohort (its
    /// record's selected), m_selected holding those the models went to.
    std::unique_ptr<secagg::SecAggRound> m_secagg;
    std::vector<uint32_t> m_secaggCohort;
    bool m_secaggTimerArmed = false;
    uint32_t m_episodeEnd = 0;                 ///< episodic: the episode's last round
    bool m_firstPhase = false;                 ///< two-exchange round waiting for first payloads
    std::vector<uint32_t> m_contributors;      ///< clients whose first payload was combined
    std::map<uint32_t, double> m_firstDecodeS; ///< their first payloads' decode_s
    uint32_t m_round = 0;                      ///< current round, 1-based; 0 before the first
    double m_roundStartS = 0.0;
    bool m_started = false;
    bool m_deadlineArmed = false;
    RoundRecord m_closed;                ///< the closed round, reported at its RoundClose timer
    bool m_closing = false;              ///< RoundClose armed
    std::vector<uint8_t> m_phaseMessage; ///< to send at the PhaseClose timer
    bool m_phaseClosing = false;         ///< PhaseClose armed
};

} // namespace fedran

#endif
