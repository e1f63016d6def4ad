#ifndef FEDRAN_MODELS_FL_SECAGG_SECAGG_SERVER_H
#define FEDRAN_MODELS_FL_SECAGG_SECAGG_SERVER_H

// The server's side of one secure aggregation, in stages. Each stage waits for the clients
// still in (U1 those that advertised keys, U2 those that shared them, U3 those whose masked
// vector arrived); the caller closes a stage when all have answered or its timeout passed,
// and sends what Close returns. A stage that ends with fewer than t clients fails the
// aggregation (Failed(), with the reason); so does an unmasking that cannot rebuild a secret.
// After the Unmask stage Sum() is the sum of the survivors' unmasked vectors mod 2^b.

#include "models/fl/secagg/secagg-messages.h"

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

namespace fedran::secagg
{

enum class Stage
{
    Idle,
    Advertise, ///< waiting for AdvertiseKeys
    Share,     ///< waiting for ShareKeys
    Masked,    ///< waiting for MaskedInput
    Unmask,    ///< waiting for UnmaskShares
    Done,      ///< Sum() holds the result
    Failed,
};

const char* StageName(Stage stage);

class SecAggServer
{
  public:
    /// `elements`: each masked vector's length (weight included).
    SecAggServer(SecAggSetup setup, size_t elements);

    /// Starts with `cohort` (the clients sent a Setup frame); the circulant graph over those
    /// that advertise is shuffled with `graphSeed`.
    void Begin(const std::vector<uint32_t>& cohort, uint64_t graphSeed);

    Stage Current() const
    {
        return m_stage;
    }

    /// A client's message for the current stage. Returns false if the stage does not wait for
    /// it (late, another stage's, a second one); throws DecodeError if it is malformed.
    bool Accept(uint32_t client, std::span<const uint8_t> payload);

    /// `client` is gone: the current stage stops waiting for it.
    void Lost(uint32_t client);

    /// Every client the stage waits for has answered or is gone.
    bool Complete() const
    {
        return m_waiting.empty();
    }

    /// Ends the stage; returns the next stage's messages by client (none after Unmask, or when
    /// it failed).
    std::map<uint32_t, std::vector<uint8_t>> Close();

    bool Failed() const
    {
        return m_stage == Stage::Failed;
    }

    const std::string& Failure() const
    {
        return m_failure;
    }

    /// The unmasked sum mod 2^b (Done only).
    const std::vector<uint64_t>& Sum() const
    {
        return m_sum;
    }

    /// U3: whose vectors the sum holds, ascending.
    std::vector<uint32_t> Survivors() const;

    /// Clients that shared keys but sent no masked vector (their masks were rebuilt).
    std::vector<uint32_t> DroppedAfterSharing() const;

    /// The neighbours of a client that advertised (tests, sizes).
    const std::vector<uint32_t>& Neighbours(uint32_t client) const
    {
        return m_neighbours.at(client);
    }

  private:
    struct ClientKeys
    {
        uint64_t encryptionPk = 0;
        uint64_t maskPk = 0;
    };

    void Fail(const std::string& why);
    /// Unmask stage's end: rebuild the secrets and remove the masks.
    void Finish();

    SecAggSetup m_setup;
    size_t m_elements;
    Stage m_stage = Stage::Idle;
    std::string m_failure;
    uint64_t m_graphSeed = 0;
    std::set<uint32_t> m_waiting;
    std::map<uint32_t, ClientKeys> m_keys; ///< U1
    std::map<uint32_t, std::vector<uint32_t>> m_neighbours;
    /// ShareKeys ciphertexts: (from, to) -> bytes; U2 = their senders.
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint8_t>> m_ciphertexts;
    std::set<uint32_t> m_shared;                        ///< U2
    std::map<uint32_t, std::vector<uint64_t>> m_masked; ///< U3 -> masked vector
    /// Unmask replies: owner -> (x, share) by kind.
    std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> m_seedShares;
    std::map<uint32_t, std::vector<std::pair<uint64_t, uint64_t>>> m_keyShares;
    std::vector<uint64_t> m_sum;
};

} // namespace fedran::secagg

#endif
