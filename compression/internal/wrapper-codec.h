#ifndef FEDRAN_COMPRESSION_INTERNAL_WRAPPER_CODEC_H
#define FEDRAN_COMPRESSION_INTERNAL_WRAPPER_CODEC_H

// Base of the codecs that transform an update on the client and then hand it to another codec,
// their "base" (error_feedback, clipped). The transformation is local, so a wrapper's payload
// is exactly its base's payload, with no byte of its own: decoding, the round schedule, the
// server's aggregation and a two-exchange base's later messages are all the base's. Wrappers nest
// to any depth, e.g.
// {"type": "clipped", "base": {"type": "error_feedback", "base": {"type": "top_k", ...}}}.

#include "compression/internal/codecs.h"

#include <memory>

namespace fedran::internal
{

class WrapperCodec : public RegisteredCodec
{
  public:
    /// Builds the base from the spec's required "base" key (missing -> CodecConfigError).
    explicit WrapperCodec(CodecArgs& args);

    void Decode(const TensorLayout& layout,
                std::span<const uint8_t> payload,
                std::span<float> out) final;

    void BeginRound(uint32_t round) final;

    void SetEncodeThreads(unsigned threads) final;

    std::unique_ptr<Aggregator> MakeAggregator() const final;

    bool BringsAggregator() const final;

    /// The base's: error feedback and DGC send what their base drops, but rounds later, and
    /// the delay falls on the same coordinates for every client, so it costs rounds as the
    /// base's bias does (measured: error_feedback(top_k 1%) needs 1.7x 4-bit's rounds).
    bool BiasedError() const override;

    bool HasRoundExchange() const final;

    std::unique_ptr<RoundExchange> MakeExchange(const TensorLayout& layout,
                                                uint64_t seed) const final;

    void AcceptRoundState(const TensorLayout& layout, std::span<const uint8_t> state) final;

    void EncodeReply(const TensorLayout& layout,
                     std::span<const uint8_t> message,
                     std::vector<uint8_t>& out) final;

    /// Its own transformation's cost plus its base's encode; the rest is the base's.
    double EncodeSeconds(const CostProfile& profile,
                         const TensorLayout& layout,
                         std::span<const uint8_t> payload) const final;
    double DecodeSeconds(const CostProfile& profile,
                         const TensorLayout& layout,
                         std::span<const uint8_t> payload) const final;
    double ReplySeconds(const CostProfile& profile,
                        const TensorLayout& layout,
                        std::span<const uint8_t> reply) const final;
    double CloseSeconds(const CostProfile& profile, const TensorLayout& layout) const final;

    /// The codec it hands the transformed update to.
    const Codec& Base() const
    {
        return *m_base;
    }

  protected:
    /// A copy with a copy of the base (Codec::Clone); throws std::logic_error if the base
    /// cannot be copied.
    WrapperCodec(const WrapperCodec& other);
    WrapperCodec& operator=(const WrapperCodec&) = delete;

    Codec& Base()
    {
        return *m_base;
    }

  private:
    std::unique_ptr<Codec> m_base;
};

} // namespace fedran::internal

#endif
