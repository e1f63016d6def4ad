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

    /// The client has left: it starts from zeros when it joins again (its mirror and its
    /// downlink encoder go).
    void Forget(uint32_t client);

  private:
    CodecBank& m_codecs;
    const TensorLayout& m_layout;
    std::map<uint32_t, std::vector<float>> m_mirrors;
};

} // namespace fedran

#endif
