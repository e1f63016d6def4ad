#ifndef FEDRAN_TESTS_FL_FL_TEST_UTIL_H
#define FEDRAN_TESTS_FL_FL_TEST_UTIL_H

// A fake world for the round coordinator and client sessions: a clock in ticks, timers the
// test fires, frames queued per client, and a small real learning task (LEAF Synthetic data,
// softmax regression) so that updates are real trained and encoded updates.

#include "models/fl/client-session.h"
#include "models/fl/round-coordinator.h"
#include "models/learning/model.h"
#include "models/learning/synthetic-data.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <vector>

namespace fedran::test
{

/// The L2 norm of a vector, accumulated in double in index order.
inline double
Norm(const std::vector<float>& v)
{
    double s = 0.0;
    for (float x : v)
    {
        s += double(x) * double(x);
    }
    return std::sqrt(s);
}

/// `clients` clients of Synthetic(1, 1) data with 40 examples each, softmax regression.
/// A client session's settings with nothing but its id set.
inline ClientSessionConfig
SessionOf(uint32_t client)
{
    ClientSessionConfig config;
    config.clientId = client;
    return config;
}

inline std::shared_ptr<FederatedTask>
MakeTinyTask(uint32_t clients,
             nlohmann::json uplink = {{"type", "none"}},
             nlohmann::json downlink = {{"type", "none"}})
{
    Rng rng(7, 1);
    FederatedData fed = MakeSyntheticLeaf(clients,
                                          1.0,
                                          1.0,
                                          kSyntheticFeatures,
                                          kSyntheticClasses,
                                          SizeSpec::Equal(40),
                                          0.1,
                                          rng);
    auto task = std::make_shared<FederatedTask>();
    task->seed = 11;
    task->model = MakeModel("softmax", kSyntheticFeatures, kSyntheticClasses);
    task->data = std::make_shared<TrainTestData>(std::move(fed.data));
    task->partition = std::move(fed.partition);
    task->training.batchSize = 8;
    task->training.lr = 0.1;
    task->uplinkCodec = CodecSpec::Parse(uplink, "compression.uplink");
    task->downlinkCodec = CodecSpec::Parse(downlink, "compression.downlink");
    return task;
}

/// A CoordinatorHost that records what the coordinator asks for.
class FakeHost : public CoordinatorHost
{
  public:
    int64_t now = 0;                             ///< ticks; one tick is a millisecond here
    std::map<CoordinatorTimer, int64_t> timers;  ///< armed timer -> tick it fires at
    std::map<uint32_t, std::deque<Frame>> inbox; ///< frames sent to each client, oldest first
    std::vector<std::pair<uint32_t, std::vector<uint32_t>>> started;
    std::vector<std::pair<uint32_t, uint32_t>> joinClosed; ///< (joined, expected)
    std::vector<UpdateArrivalRecord> arrivals;
    std::vector<RoundRecord> ended;
    uint64_t bytesSent = 0;
    bool finished = false;
    uint32_t draws = 0;

    double NowSeconds() const override
    {
        return double(now) / 1000.0;
    }

    void Send(uint32_t client, std::vector<uint8_t> frame) override
    {
        bytesSent += frame.size();
        inbox[client].push_back(DecodeFrame(frame));
    }

    void ArmTimer(CoordinatorTimer timer, int64_t delayTicks) override
    {
        timers[timer] = now + delayTicks;
    }

    void CancelTimer(CoordinatorTimer timer) override
    {
        timers.erase(timer);
    }

    uint32_t DrawInteger(uint32_t lo, uint32_t hi) override
    {
        // Deterministic and not always lo, so that sampling is exercised.
        ++draws;
        return lo + (draws * 7) % (hi - lo + 1);
    }

    void JoinClosed(uint32_t joined, uint32_t expected) override
    {
        joinClosed.emplace_back(joined, expected);
    }

    void RoundStarted(uint32_t round, const std::vector<uint32_t>& selected) override
    {
        started.emplace_back(round, selected);
    }

    void FrameSent(uint32_t, uint32_t client, uint64_t, const std::string& downlinkCodec) override
    {
        if (!downlinkCodec.empty())
        {
            modelCodecs.emplace_back(client, downlinkCodec);
        }
    }

    /// The codec of each model frame sent, in order: (client, downlink_codec).
    std::vector<std::pair<uint32_t, std::string>> modelCodecs;

    void UpdateArrived(const UpdateArrivalRecord& record) override
    {
        arrivals.push_back(record);
    }

    void RoundEnded(const RoundRecord& record) override
    {
        ended.push_back(record);
    }

    void Finished() override
    {
        finished = true;
    }

    bool Armed(CoordinatorTimer timer) const
    {
        return timers.count(timer) > 0;
    }

    /// Advances the clock to the timer and fires it.
    void Fire(CoordinatorTimer timer, ServerCoordinator& coordinator)
    {
        now = timers.at(timer);
        timers.erase(timer);
        coordinator.OnTimer(timer);
    }

    /// Takes the oldest frame queued for `client`.
    Frame Take(uint32_t client)
    {
        Frame frame = std::move(inbox.at(client).front());
        inbox.at(client).pop_front();
        return frame;
    }

    bool HasFrame(uint32_t client) const
    {
        auto it = inbox.find(client);
        return it != inbox.end() && !it->second.empty();
    }
};

/// Rounds on the fake host's millisecond ticks: a 60 s deadline, a 30 s join timeout.
inline CoordinatorConfig
FakeHostConfig(uint32_t rounds, uint32_t clientsPerRound, uint32_t expectedClients)
{
    CoordinatorConfig config;
    config.rounds = rounds;
    config.clientsPerRound = clientsPerRound;
    config.expectedClients = expectedClients;
    config.deadlineTicks = 60'000;
    config.joinTimeoutTicks = 30'000;
    config.ticksPerSecond = 1000.0;
    return config;
}

/// Starts a coordinator on `host` with a session per client (pushed to `clients`), every
/// client connected and joined.
inline std::unique_ptr<RoundCoordinator>
StartWithClients(const CoordinatorConfig& config,
                 const std::shared_ptr<FederatedTask>& task,
                 FakeHost& host,
                 std::vector<std::unique_ptr<ClientSession>>& clients)
{
    auto server = std::make_unique<RoundCoordinator>(config, task, host);
    for (uint32_t c = 0; c < config.expectedClients; ++c)
    {
        clients.push_back(std::make_unique<ClientSession>(SessionOf(c), task));
    }
    server->Start();
    for (uint32_t c = 0; c < config.expectedClients; ++c)
    {
        clients[c]->BeginConnection();
        server->OnJoin(c);
    }
    return server;
}

} // namespace fedran::test

#endif
