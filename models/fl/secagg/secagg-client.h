#ifndef FEDRAN_MODELS_FL_SECAGG_SECAGG_CLIENT_H
#define FEDRAN_MODELS_FL_SECAGG_SECAGG_CLIENT_H

// A client's side of one secure aggregation (Bonawitz et al. 2017, semi-honest; SecAgg+ when
// the server gives it fewer neighbours than the cohort): two key pairs, t-of-n shares of its
// mask key and self-mask seed for its neighbours, the masked vector, and the shares the
// server asks for to unmask. Each method consumes one server message and returns the reply;
// they must be called in protocol order (a message out of order throws DecodeError).

#include "compression/rng.h"
#include "models/fl/secagg/secagg-messages.h"

#include <cstdint>
#include <map>
#include <span>
#include <vector>

namespace fedran::secagg
{

class SecAggClient
{
  public:
    /// `rng`: the client's own stream for this round (its keys, seed and share polynomials).
    SecAggClient(uint32_t id, SecAggSetup setup, Rng rng);

    /// AdvertiseKeys: draws both key pairs, returns their public halves.
    std::vector<uint8_t> AdvertiseKeys();

    /// Takes the Keys message (neighbours' public keys); returns ShareKeys: the shares of its
    /// mask key and self-mask seed, one ciphertext per neighbour. Throws DecodeError.
    std::vector<uint8_t> ShareKeys(std::span<const uint8_t> keys);

    /// Takes the Shares relay: the neighbours whose shares arrived are those it masks with.
    void AcceptShares(std::span<const uint8_t> shares);

    /// MaskedInput of `values` (each < 2^bits): + self mask, +/- a pairwise mask per neighbour
    /// whose shares it holds (+ toward a larger id, - toward a smaller one).
    std::vector<uint8_t> MaskInput(std::vector<uint64_t> values);

    /// Takes the Unmask request; returns the shares it holds of the survivors' seeds and the
    /// dropped clients' mask keys. An honest client never gives both for the same client: an id
    /// in both lists, or its own id among the dropped, gets nothing.
    std::vector<uint8_t> Unmask(std::span<const uint8_t> request);

    const SecAggSetup& Setup() const
    {
        return m_setup;
    }

    /// The neighbours it masked with (tests).
    std::vector<uint32_t> MaskPeers() const;

  private:
    struct Peer
    {
        uint64_t encryptionPk = 0;
        uint64_t maskPk = 0;
        bool shared = false;    ///< its shares reached this client
        uint64_t keyShare = 0;  ///< its share of the peer's mask key
        uint64_t seedShare = 0; ///< of the peer's self-mask seed
    };

    uint32_t m_id;
    SecAggSetup m_setup;
    Rng m_rng;
    uint64_t m_encryptionSk = 0;
    uint64_t m_maskSk = 0;
    uint64_t m_seed = 0; ///< self-mask seed b_u
    uint64_t m_ownKeyShare = 0;
    uint64_t m_ownSeedShare = 0;
    std::map<uint32_t, Peer> m_peers;
    int m_stage = 0; ///< messages handled so far, to refuse one out of order
};

} // namespace fedran::secagg

#endif
