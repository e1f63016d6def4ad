#include "models/fl/client-view-encoder.h"

#include "compression/adaptive-ladder.h"

#include <stdexcept>

namespace fedran
{

ClientViewEncoder::ClientViewEncoder(CodecBank& codecs, const TensorLayout& layout)
    : m_codecs(codecs)
    , m_layout(layout)
{
}

Codec&
ClientViewEncoder::Prepare(uint32_t client, std::span<const float> global, std::span<float> scratch)
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
    return encoder;
}

void
ClientViewEncoder::Follow(uint32_t client,
                          std::span<const uint8_t> payload,
                          std::span<float> scratch)
{
    // Mirror the client: it will add exactly what this payload decodes to (an adaptive
    // payload names its rung in its last byte, and the decoder reads it as the client's does).
    std::vector<float>& mirror = m_mirrors[client];
    m_codecs.ModelEncoder().Decode(m_layout, payload, scratch);
    for (size_t i = 0; i < mirror.size(); ++i)
    {
        mirror[i] += scratch[i];
    }
}

std::vector<uint8_t>
ClientViewEncoder::Encode(uint32_t client,
                          uint32_t round,
                          std::span<const float> global,
                          Rng& rng,
                          std::span<float> scratch)
{
    Codec& encoder = Prepare(client, global, scratch);
    std::vector<uint8_t> payload;
    encoder.BeginRound(round);
    encoder.Encode(m_layout, scratch, rng, payload);
    Follow(client, payload, scratch);
    return payload;
}

std::vector<uint64_t>
ClientViewEncoder::RungSizes(uint32_t client,
                             uint32_t round,
                             std::span<const float> global,
                             const Rng& rng,
                             std::span<float> scratch)
{
    Codec& encoder = Prepare(client, global, scratch);
    AdaptiveLadder* ladder = encoder.Ladder();
    if (ladder == nullptr)
    {
        throw std::logic_error("client view: RungSizes needs an adaptive downlink");
    }
    encoder.BeginRound(round);
    std::vector<uint64_t> sizes;
    for (size_t r = 0; r < ladder->RungCount(); ++r)
    {
        sizes.push_back(ladder->Trial(m_layout, r, scratch, rng, false, nullptr).payloadBytes);
    }
    // The sizes only: the encoding that is sent draws from the stream as it is then.
    ladder->DiscardTrials();
    return sizes;
}

std::vector<uint8_t>
ClientViewEncoder::EncodeRung(uint32_t client,
                              uint32_t round,
                              size_t rung,
                              std::span<const float> global,
                              Rng& rng,
                              std::span<float> scratch)
{
    Codec& encoder = Prepare(client, global, scratch);
    AdaptiveLadder* ladder = encoder.Ladder();
    if (ladder == nullptr)
    {
        throw std::logic_error("client view: EncodeRung needs an adaptive downlink");
    }
    encoder.BeginRound(round);
    ladder->Trial(m_layout, rung, scratch, rng, false, nullptr);
    std::vector<uint8_t> payload;
    ladder->Commit(rung, payload, rng); // the rung's state (a residual) moves on
    Follow(client, payload, scratch);
    return payload;
}

std::span<const float>
ClientViewEncoder::Mirror(uint32_t client) const
{
    const auto it = m_mirrors.find(client);
    return it == m_mirrors.end() ? std::span<const float>() : std::span<const float>(it->second);
}

void
ClientViewEncoder::Forget(uint32_t client)
{
    m_mirrors.erase(client);
    m_codecs.ForgetView(client);
}

} // namespace fedran
