#ifndef FEDRAN_MODELS_FL_BUCKET_ASSEMBLER_H
#define FEDRAN_MODELS_FL_BUCKET_ASSEMBLER_H

// training.pipelining "layerwise" on the server: the buckets (ClientUpdatePart frames) of
// each client's update, decoded as they arrive into that client's partial update, until its
// last bucket makes the whole update. Each bucket position has a decoder of its own
// (CodecBank::BucketDecoder), kept across rounds, because the client encodes each bucket with
// its own encoder (a codec's state, such as a sparsity warm-up, follows its bucket).

#include "models/fl/codec-bank.h"
#include "models/fl/server-clock.h"

#include <cstdint>
#include <map>
#include <span>
#include <vector>

namespace fedran
{

class BucketAssembler
{
  public:
    /// Buckets of updates of `layout`, decoded by the bucket decoders of `codecs`.
    BucketAssembler(CodecBank& codecs, const TensorLayout& layout);

    /// What a bucket did.
    struct Arrival
    {
        double decodeS = 0.0;  ///< decoding it on the server (ServerClock seconds)
        bool complete = false; ///< it was the update's last: Update(client) is whole
    };

    /// Decodes a bucket's payload (prefix and body) from `client` in `round`. Throws
    /// DecodeError if it is malformed, does not fit the buckets seen so far, or repeats one;
    /// the partial update is then unchanged.
    Arrival Add(uint32_t client,
                uint32_t round,
                std::span<const uint8_t> payload,
                const ServerClock& clock);

    /// The client's update so far (whole once Add returned complete), and the decoding time
    /// and frame bytes of its buckets.
    const std::vector<float>& Values(uint32_t client) const;
    double DecodeSeconds(uint32_t client) const;
    uint64_t FrameBytes(uint32_t client) const;

    /// Drops the client's partial update (completed, or its round has ended).
    void Forget(uint32_t client);
    /// Drops every partial update (a new round: those never completed).
    void Clear();

    /// Whether a bucket payload comes before its update's last one (false if its prefix is
    /// malformed: such a frame stands for the whole update).
    bool BeforeLast(std::span<const uint8_t> payload) const;

  private:
    struct Partial
    {
        std::vector<float> values;
        std::vector<bool> seen;
        uint32_t received = 0;
        uint64_t frameBytes = 0;
        double decodeS = 0.0;
    };

    const Partial& PartialOf(uint32_t client) const;

    CodecBank& m_codecs;
    const TensorLayout& m_layout;
    std::map<uint32_t, Partial> m_partials;
};

} // namespace fedran

#endif
