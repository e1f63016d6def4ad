#include "models/fl/client-view-encoder.h"

namespace fedran
{

ClientViewEncoder::ClientViewEncoder(CodecBank& codecs, const TensorLayout& layout)
    : m_codecs(codecs)
    , m_layout(layout)
{
}

std::vector<uint8_t>
ClientViewEncoder::Encode(uint32_t client,
                          uint32_t round,
                          std::span<const float> global,
                          Rng& rng,
                          std::span<float> scratch)
{
    bool fresh = false;
    Codec& encoder = m_codecs.ViewEncoder(client, fresh);
    std::vector<float>& mirror = m_mirrors[client];
    if (fresh)
    {
        // Clients start from zeros (ClientSession); so does the server's mirror.
        mirror.assign(global.size(), 0.0f);
    }
    for (size_t i = 0; i < global.size(); ++i)
    {
        scratch[i] = global[i] - mirror[i];
    }
    std::vector<uint8_t> payload;
    encoder.BeginRound(round);
    encoder.Encode(m_layout, scratch, rng, payload);
    // Mirror the client: it will add exactly what this payload decodes to.
    m_codecs.ModelEncoder().Decode(m_layout, payload, scratch);
    for (size_t i = 0; i < global.size(); ++i)
    {
        mirror[i] += scratch[i];
    }
    return payload;
}

void
ClientViewEncoder::Forget(uint32_t client)
{
    m_mirrors.erase(client);
    m_codecs.ForgetView(client);
}

} // namespace fedran
