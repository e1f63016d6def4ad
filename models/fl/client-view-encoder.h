#ifndef FEDRAN_MODELS_FL_CLIENT_VIEW_ENCODER_H
#define FEDRAN_MODELS_FL_CLIENT_VIEW_ENCODER_H

// compression.downlink_reference "client_view": the server keeps, per client, a mirror of the
// model that client holds and sends it global − mirror, encoded by that client's own downlink
// encoder (a codec may keep per-client state, like error feedback's residual). The mirror
// then moves by exactly what the client will decode, so the two never drift apart.

#include "models/fl/codec-bank.h"

#include <cstdint>
#include <map>
#include <span>
#include <vector>

namespace fedran
{

class ClientViewEncoder
{
  public:
    /// Model frames of `layout` encoded by the clients' downlink encoders in `codecs`.
    ClientViewEncoder(CodecBank& codecs, const TensorLayout& layout);

    /// The payload for `client` in `round`: global − (its copy), and the copy moved as the
    /// client will move it (decoded with the bank's model encoder, a decoder of the same
    /// codec). `scratch` is model-sized working space.
    std::vector<uint8_t> Encode(uint32_t client,
                                uint32_t round,
                                std::span<const float> global,
                                Rng& rng,
                                std::span<float> scratch);

    /// Adaptive downlink: the payload bytes (rung byte included) each rung of the ladder would
    /// send `client` in `round`, from trial encodings of global − (its copy) on copies of its
    /// rungs' state and of `rng`; nothing changes (no state, no draw).
    std::vector<uint64_t> RungSizes(uint32_t client,
                                    uint32_t round,
                                    std::span<const float> global,
                                    const Rng& rng,
                                    std::span<float> scratch);

    /// Adaptive downlink: Encode with rung `rung` of the client's ladder (that rung's state,
    /// an error-feedback residual, moves on; the others stay as they were).
    std::vector<uint8_t> EncodeRung(uint32_t client,
                                    uint32_t round,
                                    size_t rung,
                                    std::span<const float> global,
                                    Rng& rng,
                                    std::span<float> scratch);

    /// The server's copy of what `client` holds (empty if it has none): tests compare it with
    /// the client's own.
    std::span<const float> Mirror(uint32_t client) const;

    /// The client has left: it starts from zeros when it joins again (its mirror and its
    /// downlink encoder go).
    void Forget(uint32_t client);

  private:
    /// The client's encoder, its mirror (zeros when fresh), and global − mirror in `scratch`.
    Codec& Prepare(uint32_t client, std::span<const float> global, std::span<float> scratch);
    /// Moves the mirror by what `payload` decodes to, as the client will.
    void Follow(uint32_t client, std::span<const uint8_t> payload, std::span<float> scratch);

    CodecBank& m_codecs;
    const TensorLayout& m_layout;
    std::map<uint32_t, std::vector<float>> m_mirrors;
};

} // namespace fedran

#endif
