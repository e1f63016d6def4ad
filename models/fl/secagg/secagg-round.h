#ifndef FEDRAN_MODELS_FL_SECAGG_SECAGG_ROUND_H
#define FEDRAN_MODELS_FL_SECAGG_SECAGG_ROUND_H

// What a synchronous round needs of secure aggregation, on both ends, without ns-3: the
// server's stages with their timing and byte counts (SecAggRound), and the client's side
// from the Setup frame to its unmasking shares (SecAggSite). The round coordinator and the
// client session forward frames to them (round-secagg.cc, client-session.cc).
//
// A round with secure aggregation (docs/privacy.md):
//   1. Setup (server -> the round's clients) -> AdvertiseKeys -> Keys (neighbours' keys)
//      -> ShareKeys -> Shares (the relay): each stage waits for every client still in, or
//      timeout_s;
//   2. the model goes to those that shared keys; each trains and sends its masked vector as
//      its update frame (the round's deadline applies, as without secure aggregation);
//   3. Unmask -> UnmaskShares (timeout_s); the server removes the masks and maps the sum
//      back to the mean update. A stage that ends with fewer than `threshold` clients, or an
//      unmasking that cannot rebuild a secret, fails the round: the model stays as it was.

#include "compression/codec-spec.h"
#include "compression/rng.h"
#include "models/fl/dp-config.h"
#include "models/fl/secagg/secagg-client.h"
#include "models/fl/secagg/secagg-config.h"
#include "models/fl/secagg/secagg-server.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fedran::secagg
{

/// How an uplink codec composes with secure aggregation.
enum class Composition
{
    Dense,   ///< the codec's decoded update (none: the update itself) is quantized whole
    RandomK, ///< random_k: the k positions of the round's shared support only
};

/// The codec's composition, or the reason it cannot compose (sparsifiers with supports of
/// their own, two exchanges, adaptive rungs, votes...).
std::optional<Composition> Compose(const CodecSpec& uplink, std::string& why);

/// random_k's k over the whole model of `size` floats (its `k`, or round(ratio x size), at
/// least 1), and whether the server scales by size / k (its `scale`).
uint64_t RandomKCount(const CodecSpec& uplink, uint64_t size, bool& scale);

/// The round's shared seed of random_k's support (both ends draw it from the run seed).
uint64_t SupportSeed(uint64_t runSeed, uint32_t round);

/// The setup of a round from the scenario's keys and the cohort's size: num_shares made odd
/// and capped at the cohort ("secagg": the cohort), threshold as given.
SecAggSetup MakeSetup(const SecAggConfig& config, uint32_t cohort);

/// Elements of each masked vector: the weight and the model's floats (random_k: its k).
size_t MaskedElements(const SecAggConfig& config, const CodecSpec& uplink, uint64_t modelSize);

/// The server's side of each round.
class SecAggRound
{
  public:
    SecAggRound(SecAggConfig config,
                CodecSpec uplink,
                DpConfig dp,
                uint64_t modelSize,
                uint64_t runSeed,
                uint32_t clientsPerRound);

    /// A round begins with `cohort`: returns the Setup payload to send each of them.
    std::vector<uint8_t> Begin(uint32_t round, const std::vector<uint32_t>& cohort, double nowS);

    /// Whether a round's aggregation is under way (from Begin to its end or failure).
    bool Active() const
    {
        return m_server && !m_server->Failed() && m_server->Current() != Stage::Done;
    }

    Stage Current() const
    {
        return m_server ? m_server->Current() : Stage::Idle;
    }

    /// The stages the clients answer with a SecAgg frame (not the masked input).
    bool KeyOrUnmaskStage() const
    {
        const Stage s = Current();
        return s == Stage::Advertise || s == Stage::Share || s == Stage::Unmask;
    }

    SecAggServer& Server()
    {
        return *m_server;
    }

    /// Closes the current stage at `nowS`: the next stage's payloads by client (empty when it
    /// failed or after unmasking).
    std::map<uint32_t, std::vector<uint8_t>> Close(double nowS);

    /// Protocol frames (header included) beyond the masked vectors, both ways.
    void CountBytes(uint64_t bytes)
    {
        m_bytes += bytes;
    }

    uint64_t Bytes() const
    {
        return m_bytes;
    }

    /// Seconds in the key and unmask stages so far this round.
    double Seconds() const
    {
        return m_seconds;
    }

    /// "ok", or "failed_<stage>" (rounds.csv secagg_status).
    std::string Status() const;

    const std::string& Failure() const
    {
        return m_server->Failure();
    }

    /// After the Unmask stage: the mean update into `out` (model size) and the clients it
    /// holds; 0 when the round failed. With privacy.dp central the clipped updates' sum gets
    /// N(0, (z C)^2) per coordinate and is divided by clients_per_round.
    size_t Result(std::span<float> out);

    /// The stage's timeout, seconds.
    double TimeoutS() const
    {
        return m_config.timeoutS;
    }

  private:
    SecAggConfig m_config;
    CodecSpec m_uplink;
    DpConfig m_dp;
    uint64_t m_modelSize;
    uint64_t m_runSeed;
    uint32_t m_clientsPerRound;
    Rng m_dpNoise; ///< privacy.dp central: the server's noise (kDpNoiseStream)
    uint32_t m_round = 0;
    std::unique_ptr<SecAggServer> m_server;
    Stage m_failedIn = Stage::Idle;
    double m_stageStartS = 0.0;
    uint64_t m_bytes = 0;
    double m_seconds = 0.0;
};

/// A client's side across rounds.
class SecAggSite
{
  public:
    SecAggSite(uint32_t client, uint64_t runSeed, CodecSpec uplink, DpConfig dp);

    /// A Setup frame of `round`: a fresh protocol state; returns AdvertiseKeys.
    std::vector<uint8_t> Setup(uint32_t round, std::span<const uint8_t> payload);
    /// Keys -> ShareKeys.
    std::vector<uint8_t> Keys(uint32_t round, std::span<const uint8_t> payload);
    /// The Shares relay (no answer).
    void Shares(uint32_t round, std::span<const uint8_t> payload);
    /// Unmask -> UnmaskShares.
    std::vector<uint8_t> Unmask(uint32_t round, std::span<const uint8_t> payload);

    /// Whether `round`'s masked input is what this client's update frame must carry.
    bool Masking(uint32_t round) const
    {
        return m_protocol && m_round == round;
    }

    /// The masked vector of `values`: the dense update as the codec would have it decoded
    /// (Dense) or the full update (RandomK, gathered here); `examples` its weight.
    std::vector<uint8_t> MaskedInput(std::span<const float> values, uint64_t examples);

  private:
    /// Throws DecodeError unless the frame is of the round in progress.
    void Expect(uint32_t round) const;

    uint32_t m_client;
    uint64_t m_runSeed;
    CodecSpec m_uplink;
    DpConfig m_dp;
    Rng m_rng; ///< keys, seeds, polynomials and stochastic rounding (kClientSecAggStreamBase)
    uint32_t m_round = 0;
    std::unique_ptr<SecAggClient> m_protocol;
};

} // namespace fedran::secagg

#endif
