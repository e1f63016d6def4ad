#include "models/fl/client-view-encoder.h"

#include "compression/codec-spec.h"

namespace fedran
{

ClientViewEncoder::ClientViewEncoder(CodecSpec downlinkSpec, const TensorLayout& layout)
    : m_downlinkSpec(std::move(downlinkSpec))
    , m_layout(layout)
{
}

std::vector<uint8_t>
ClientViewEncoder::Encode(uint32_t client,
                          uint32_t round,
                          std::span<const float> global,
                          Codec& mirror,
                          Rng& rng,
                          std::span<float> scratch)
{
    View& view = m_views[client];
    if (!view.encoder)
    {
        // Clients start from zeros (ClientSession); so does the server's mirror.
        view.encoder = MakeCodec(m_downlinkSpec);
        view.model.assign(global.size(), 0.0f);
    }
    for (size_t i = 0; i < global.size(); ++i)
    {
        scratch[i] = global[i] - view.model[i];
    }
    std::vector<uint8_t> payload;
    view.encoder->BeginRound(round);
    view.encoder->Encode(m_layout, scratch, rng, payload);
    // Mirror the client: it will add exactly what this payload decodes to.
    mirror.Decode(m_layout, payload, scratch);
    for (size_t i = 0; i < global.size(); ++i)
    {
        view.model[i] += scratch[i];
    }
    return payload;
}

void
ClientViewEncoder::Forget(uint32_t client)
{
    m_views.erase(client);
}

} // namespace fedran
