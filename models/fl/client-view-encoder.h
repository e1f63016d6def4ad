#ifndef FEDRAN_MODELS_FL_CLIENT_VIEW_ENCODER_H
#define FEDRAN_MODELS_FL_CLIENT_VIEW_ENCODER_H

// compression.downlink_reference "client_view": the server keeps, per client, a mirror of the
// model that client holds and sends it global − mirror, encoded by that client's own downlink
// encoder (a codec may keep per-client state, like error feedback's residual). The mirror
// then moves by exactly what the client will decode, so the two never drift apart.

#include "compression/codec-spec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

namespace fedran
{

class ClientViewEncoder
{
  public:
    /// Model frames of `layout` encoded with the codec `downlinkSpec`.
    ClientViewEncoder(CodecSpec downlinkSpec, const TensorLayout& layout);

    /// The payload for `client` in `round`: global − (its copy), and the copy moved as the
    /// client will move it (decoded with `mirror`, a decoder of the same codec). `scratch`
    /// is model-sized working space.
    std::vector<uint8_t> Encode(uint32_t client,
                                uint32_t round,
                                std::span<const float> global,
                                Codec& mirror,
                                Rng& rng,
                                std::span<float> scratch);

    /// The client has left: it starts from zeros when it joins again.
    void Forget(uint32_t client);

  private:
    struct View
    {
        std::vector<float> model;
        std::unique_ptr<Codec> encoder;
    };

    CodecSpec m_downlinkSpec;
    const TensorLayout& m_layout;
    std::map<uint32_t, View> m_views;
};

} // namespace fedran

#endif
