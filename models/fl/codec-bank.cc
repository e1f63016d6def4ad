#include "models/fl/codec-bank.h"

namespace fedran
{

CodecBank::CodecBank(CodecSpec uplink,
                     CodecSpec downlink,
                     std::map<uint32_t, CodecSpec> peerUplinks)
    : m_uplink(std::move(uplink))
    , m_downlink(std::move(downlink))
    , m_peerUplinks(std::move(peerUplinks))
{
}

CodecBank::CodecBank() = default;
CodecBank::~CodecBank() = default;
CodecBank::CodecBank(CodecBank&&) noexcept = default;
CodecBank& CodecBank::operator=(CodecBank&&) noexcept = default;

Codec&
CodecBank::Made(std::unique_ptr<Codec>& slot, const CodecSpec& spec)
{
    if (!slot)
    {
        // The one place models/fl builds a codec: the spec was checked when the scenario
        // was read, and building has no side effect (no draw), so when it happens is free.
        slot = MakeCodec(spec);
    }
    return *slot;
}

const CodecSpec&
CodecBank::UplinkSpec(uint32_t peer) const
{
    const auto own = m_peerUplinks.find(peer);
    return own == m_peerUplinks.end() ? m_uplink : own->second;
}

uint16_t
CodecBank::UplinkId(uint32_t peer) const
{
    return UplinkSpec(peer).WireId(); // the id of the codec it builds
}

Codec&
CodecBank::Uplink()
{
    return Made(m_uplinkCodec, m_uplink);
}

Codec&
CodecBank::ModelEncoder()
{
    return Made(m_modelEncoder, m_downlink);
}

Codec&
CodecBank::ViewEncoder(uint32_t peer, bool& fresh)
{
    std::unique_ptr<Codec>& slot = m_peers[peer].view;
    fresh = slot == nullptr;
    return Made(slot, m_downlink);
}

Codec&
CodecBank::UpdateDecoder(uint32_t peer, uint32_t round)
{
    Codec& decoder = Made(m_peers[peer].update, UplinkSpec(peer));
    // Updates are decoded in their own round only: the decoder follows the encoder's round
    // schedule (a sparsity warm-up).
    decoder.BeginRound(round);
    return decoder;
}

Codec&
CodecBank::BucketDecoder(uint32_t peer, uint32_t bucket, uint32_t buckets, uint32_t round)
{
    std::vector<std::unique_ptr<Codec>>& decoders = m_peers[peer].buckets;
    decoders.resize(buckets);
    Codec& decoder = Made(decoders[bucket], UplinkSpec(peer));
    decoder.BeginRound(round);
    return decoder;
}

void
CodecBank::DropIfEmpty(uint32_t peer)
{
    const auto it = m_peers.find(peer);
    if (it != m_peers.end() && !it->second.view && !it->second.update && it->second.buckets.empty())
    {
        m_peers.erase(it);
    }
}

void
CodecBank::ForgetView(uint32_t peer)
{
    const auto it = m_peers.find(peer);
    if (it != m_peers.end())
    {
        it->second.view.reset();
        DropIfEmpty(peer);
    }
}

void
CodecBank::ForgetUpdateDecoders(uint32_t peer)
{
    const auto it = m_peers.find(peer);
    if (it != m_peers.end())
    {
        it->second.update.reset();
        it->second.buckets.clear();
        DropIfEmpty(peer);
    }
}

Codec&
CodecBank::ModelDecoder()
{
    return Made(m_modelDecoder, m_downlink);
}

Codec&
CodecBank::UpdateEncoder()
{
    return Made(m_updateEncoder, m_uplink);
}

Codec&
CodecBank::BucketEncoder(uint32_t bucket, uint32_t buckets)
{
    m_bucketEncoders.resize(buckets);
    return Made(m_bucketEncoders[bucket], m_uplink);
}

void
CodecBank::ResetReceiver()
{
    m_modelDecoder.reset();
    m_updateEncoder.reset();
}

} // namespace fedran
