#ifndef FEDRAN_MODELS_FL_LOSS_POLL_H
#define FEDRAN_MODELS_FL_LOSS_POLL_H

// power_of_choice pow-d's extra exchange (Cho, Wang & Joshi, AISTATS 2022): before a round's
// clients are chosen, the server sends the current model to d candidates (LossPoll frames),
// each answers with its mean loss at that model (a LossReply frame: one float32), and once
// every candidate has answered, or the poll's timeout has passed, the m highest are kept and
// told to train from the model they already hold (TrainStart frames, no payload). LossPoll
// keeps the server's side of one poll; the client's side is in ClientSession.

#include "models/fl/federated-task.h"

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <vector>

namespace fedran
{

/// A LossReply frame's payload: the loss as a little-endian float32.
constexpr size_t kLossReplyPayloadBytes = 4;

/// How many forward-and-backward passes over a client's examples its poll answer costs on its
/// compute clock: one (ClientLoss evaluates every local example once; the model has no
/// loss-only call, so each example costs what a training step's example costs).
constexpr double kPollPassFactor = 1.0;

/// The LossReply payload of `loss`.
std::vector<uint8_t> EncodeLossReply(double loss);

/// The loss a LossReply payload carries. Throws DecodeError unless it is exactly
/// kLossReplyPayloadBytes long and finite.
double DecodeLossReply(std::span<const uint8_t> payload);

/// Simulated seconds a client at `samplesPerSecond` takes to answer a poll.
double PollSeconds(const FederatedTask& task, uint32_t client, double samplesPerSecond);

/// The server's side of one poll.
class LossPoll
{
  public:
    /// A poll of `candidates` for `round` starts (any earlier one is forgotten).
    void Begin(uint32_t round, const std::vector<uint32_t>& candidates);

    /// Whether a poll is waiting for answers.
    bool Active() const
    {
        return m_active;
    }

    uint32_t Round() const
    {
        return m_round;
    }

    /// `client` answered `round`'s poll with `loss`. Returns false for an answer the poll does
    /// not wait for (another round's, a client not polled, a second answer, or after the poll
    /// ended): a late answer, to be ignored.
    bool Answer(uint32_t client, uint32_t round, double loss);

    /// `client` was lost (its connection ended): it will not answer.
    void Lost(uint32_t client);

    /// Every candidate has answered or been lost.
    bool Complete() const
    {
        return m_waiting.empty();
    }

    /// Ends the poll: the answers it has, by client.
    std::map<uint32_t, double> End();

    const std::vector<uint32_t>& Candidates() const
    {
        return m_candidates;
    }

  private:
    bool m_active = false;
    uint32_t m_round = 0;
    std::vector<uint32_t> m_candidates;
    std::set<uint32_t> m_waiting;
    std::map<uint32_t, double> m_losses;
};

} // namespace fedran

#endif
