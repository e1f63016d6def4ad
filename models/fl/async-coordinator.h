#ifndef FEDRAN_MODELS_FL_ASYNC_COORDINATOR_H
#define FEDRAN_MODELS_FL_ASYNC_COORDINATOR_H

// The server's side of asynchronous FL without ns-3: FedAsync (Xie et al. 2019) with a buffer
// of one, FedBuff (Nguyen et al., AISTATS 2022) with a buffer of K. Arrival times come from
// the simulated network, not from a formula.

#include "models/fl/server-clock.h"
#include "models/fl/server-coordinator.h"
#include "models/fl/server-state.h"

#include <map>
#include <memory>
#include <set>
#include <vector>

namespace fedran
{

/**
 * Keeps C = asyncConfig.concurrency joined clients training at every moment while enough
 * are idle: whenever one answers (or fails, or is lost), the server sends the current model to
 * another idle client drawn from its sampling stream. Each update that arrives is weighted by
 * its samples and by the staleness weight s(v_now − v_start), v_start being the version the
 * client trained from; once K = asyncConfig.buffer updates are in the buffer, the server
 * takes a step: the combined update is Σ nₖ s(τₖ) Δₖ / Σ nₖ (the aggregation rule's result,
 * rescaled so that staleness down-weights rather than renormalises; with constant weights it
 * is the sample-weighted mean, as in a synchronous round), the server optimiser applies it,
 * the version goes up by one and the model is evaluated (a RoundRecord per step). Updates
 * older than maxStaleness versions are discarded (fate Stale). `rounds` counts steps.
 *
 * Frames carry round = v_start + 1 (the round a synchronous server would have numbered that
 * model), so client sessions and codecs see increasing rounds. The deadline does not apply:
 * there is no round to close, and a slow client's update arrives staler instead.
 */
class AsyncCoordinator : public ServerCoordinator
{
  public:
    AsyncCoordinator(CoordinatorConfig config,
                     std::shared_ptr<const FederatedTask> task,
                     CoordinatorHost& host);
    ~AsyncCoordinator() override;

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

    /// Server steps taken so far.
    uint32_t Version() const
    {
        return m_version;
    }

    /// Clients training now (sent a model, update not yet in).
    size_t TrainingCount() const
    {
        return m_training.size();
    }

  private:
    void Begin();
    /// Sends the model to idle clients until C are training or none is idle.
    void Fill();
    void Dispatch(uint32_t client);
    void MakeIdle(uint32_t client);
    void RemoveIdle(uint32_t client);
    void Fold(uint32_t client, const Frame& frame, UpdateArrivalRecord& record);
    void Step();
    /// Reports the step computed by Step, once its server time has passed, and goes on.
    void ReportStep();

    CoordinatorConfig m_config;
    std::shared_ptr<const FederatedTask> m_task;
    CoordinatorHost& m_host;

    ServerState m_state;
    ServerClock m_clock; ///< the server's decoding, folding, applying and evaluating
    std::vector<uint8_t> m_modelPayload; ///< the current version, encoded once
    bool m_modelEncoded = false;

    std::set<uint32_t> m_joined;
    std::map<uint32_t, uint32_t> m_training; ///< client -> version it trains from
    std::vector<uint32_t> m_idle;            ///< joined, not training; O(1) draw and removal
    std::vector<int64_t> m_idleAt;           ///< per client: index in m_idle, or -1

    uint32_t m_version = 0;     ///< server steps taken
    uint32_t m_buffered = 0;    ///< updates in the buffer (lazy skips count)
    double m_sumSamples = 0.0;  ///< Σ nₖ over the buffer's updates
    double m_sumWeighted = 0.0; ///< Σ nₖ s(τₖ)
    std::vector<uint32_t> m_bufferClients;
    double m_bufferFirstS = -1.0;
    double m_stepStartS = 0.0;
    bool m_started = false;
    bool m_finished = false;
    RoundRecord m_stepRecord; ///< the step computed, reported at its RoundClose timer
    bool m_stepping = false;  ///< RoundClose armed
};

} // namespace fedran

#endif
