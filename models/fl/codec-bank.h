#ifndef FEDRAN_MODELS_FL_CODEC_BANK_H
#define FEDRAN_MODELS_FL_CODEC_BANK_H

// The codecs one endpoint of the protocol owns, by role, and how long each lives. A codec may
// carry state from round to round (error feedback's residual, dgc's momentum, power_sgd's warm
// start, a sparsity warm-up's schedule, a lazy update's last decoded update), so each encoder
// has exactly one decoder that mirrors it at the other end; their owner drops them when that
// state no longer matters (ForgetView, ForgetUpdateDecoders, ResetReceiver). Every codec of
// models/fl is made here, from the two specs of the link (and a child aggregator's own uplink
// spec), on first use: an endpoint holds only the codecs of the roles it plays and of the peers it
// has served.
//
// The sending side of the model (a server, an edge aggregator's tier) uses Uplink,
// ModelEncoder, ViewEncoder, UpdateDecoder and BucketDecoder; the receiving side (a site, an
// edge aggregator toward its parent) uses ModelDecoder, UpdateEncoder and BucketEncoder.

#include "compression/codec-spec.h"

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace fedran
{

class CodecBank
{
  public:
    /// No codec configured (a placeholder until assigned).
    CodecBank();
    /// Updates encoded with `uplink` (a peer in `peerUplinks`, a child edge aggregator, with
    /// its own), model frames with `downlink`.
    CodecBank(CodecSpec uplink, CodecSpec downlink, std::map<uint32_t, CodecSpec> peerUplinks = {});
    ~CodecBank();

    CodecBank(CodecBank&&) noexcept;
    CodecBank& operator=(CodecBank&&) noexcept;

    /// The uplink spec of `peer`'s updates, and the codec id its frames carry.
    const CodecSpec& UplinkSpec(uint32_t peer) const;
    uint16_t UplinkId(uint32_t peer) const;

    // Sending the model, receiving updates.

    /// The uplink codec as configured, encoding nothing: its id checks frames, its cost model
    /// prices decoding, a two-exchange codec makes the round's exchange and an aggregation
    /// rule its aggregator from it.
    Codec& Uplink();
    /// The downlink encoder of the model frames every peer gets alike (also their mirror
    /// decoder: a decoder of the same codec).
    Codec& ModelEncoder();
    /// compression.downlink_reference client_view: `peer`'s own downlink encoder, the other
    /// end of its ModelDecoder; `fresh` says whether it was made by this call.
    Codec& ViewEncoder(uint32_t peer, bool& fresh);
    /// The decoder of `peer`'s whole updates, told `round` (a codec's round schedule).
    Codec& UpdateDecoder(uint32_t peer, uint32_t round);
    /// training.pipelining layerwise: the decoder of bucket `bucket` of `buckets` of `peer`'s
    /// updates, told `round`. The client encodes each bucket with its own encoder, so each
    /// bucket position has its own decoder.
    Codec& BucketDecoder(uint32_t peer, uint32_t bucket, uint32_t buckets, uint32_t round);

    /// `peer` starts its model from zeros again: its downlink encoder goes.
    void ForgetView(uint32_t peer);
    /// `peer`'s encoders start afresh: its update and bucket decoders go.
    void ForgetUpdateDecoders(uint32_t peer);

    // Receiving the model, sending updates.

    /// The codec ids of the model frames received and of the updates sent.
    uint16_t ModelId() const
    {
        return m_downlink.WireId();
    }

    uint16_t UpdateId() const
    {
        return m_uplink.WireId();
    }

    Codec& ModelDecoder();
    Codec& UpdateEncoder();
    /// training.pipelining layerwise: the encoder of bucket `bucket` of `buckets` (a codec's
    /// state is per tensor, and each bucket holds the same tensors every round).
    Codec& BucketEncoder(uint32_t bucket, uint32_t buckets);

    /// The receiving side restarts (a crashed site): its model decoder and update encoder go,
    /// with their state. The bucket encoders (layerwise) stay: a crashed site has always kept
    /// them, and runs with crashes and pipelining depend on it.
    void ResetReceiver();

  private:
    struct PeerCodecs
    {
        std::unique_ptr<Codec> view;
        std::unique_ptr<Codec> update;
        std::vector<std::unique_ptr<Codec>> buckets;
    };

    /// `slot`, made from `spec` if it is empty.
    static Codec& Made(std::unique_ptr<Codec>& slot, const CodecSpec& spec);
    /// Drops `peer`'s entry once it holds no codec.
    void DropIfEmpty(uint32_t peer);

    CodecSpec m_uplink;
    CodecSpec m_downlink;
    std::map<uint32_t, CodecSpec> m_peerUplinks;

    std::unique_ptr<Codec> m_uplinkCodec;
    std::unique_ptr<Codec> m_modelEncoder;
    std::map<uint32_t, PeerCodecs> m_peers;

    std::unique_ptr<Codec> m_modelDecoder;
    std::unique_ptr<Codec> m_updateEncoder;
    std::vector<std::unique_ptr<Codec>> m_bucketEncoders;
};

} // namespace fedran

#endif
