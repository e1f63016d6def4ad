#ifndef FEDRAN_COMPRESSION_INTERNAL_ERROR_FEEDBACK_CODEC_H
#define FEDRAN_COMPRESSION_INTERNAL_ERROR_FEEDBACK_CODEC_H

// "error_feedback" (Seide'14, Stich'18, Karimireddy'19): each client keeps what its base codec
// failed to send and adds it to its next update, so a biased compressor's error is delayed
// rather than lost.
//
//   p = update + beta * e;   payload = base.Encode(p);   e <- p - base.Decode(payload)
//
// The residual is computed from the client's own decoding of the payload, i.e. exactly what
// the server will see, so with beta = 1 the sum of everything the server decoded plus the
// final residual equals the sum of the updates (the telescoping property the tests check).
// The payload is the base's (see wrapper-codec.h); the state is e, one float per parameter,
// allocated at the first Encode (in huge pages when large, see large-buffer.h), or the update's
// own memory when the first call is EncodeConsuming (state-buffer.h). A sparse base
// (SparseDecoder: top_k, threshold, dgc) subtracts its payload from e in place; any other is
// decoded into scratch first. A base that can form p while it reads it (CompensatingEncoder:
// top_k) writes p into e in the same pass that selects from it. If the learning rate changes
// between rounds, e is not rescaled: it holds update units, as the updates are model deltas.

#include "compression/internal/state-buffer.h"
#include "compression/internal/wrapper-codec.h"

#include <span>
#include <vector>

namespace fedran::internal
{

class ErrorFeedbackCodec final : public WrapperCodec
{
  public:
    /// `beta` in [0, 1] weighs the carried residual (optirs's error_compensation).
    ErrorFeedbackCodec(CodecArgs& args, float beta);

    /// Encodes update + beta * residual. A layout of another total size restarts from e = 0.
    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& rng,
                std::vector<uint8_t>& out) override;

    /// Encode; on a first call (or another layout) e starts in `update`'s memory.
    void EncodeConsuming(const TensorLayout& layout,
                         std::vector<float>&& update,
                         Rng& rng,
                         std::vector<uint8_t>& out) override;

    std::unique_ptr<Codec> Clone() const override
    {
        return std::make_unique<ErrorFeedbackCodec>(*this);
    }

    /// e after the latest Encode (empty before the first).
    std::span<const float> Residual() const
    {
        return m_residual;
    }

  private:
    /// Forms p = update + beta * e into e (from e = 0 when `fresh`), encodes it and leaves
    /// p - D(C(p)) in e. `update` may be e's own memory when `fresh`: p is formed element by
    /// element, each read before it is written.
    void EncodeInResidual(const TensorLayout& layout,
                          std::span<const float> update,
                          bool fresh,
                          Rng& rng,
                          std::vector<uint8_t>& out);

    /// e -= base.Decode(payload), in place at the listed positions for a sparse base.
    void SubtractPayload(const TensorLayout& layout, std::span<const uint8_t> payload);

    float m_beta;
    StateBuffer m_residual;
};

} // namespace fedran::internal

#endif
