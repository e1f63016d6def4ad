#ifndef FEDRAN_COMPRESSION_INTERNAL_DGC_CODEC_H
#define FEDRAN_COMPRESSION_INTERNAL_DGC_CODEC_H

// "dgc": Deep Gradient Compression (Lin, Han, Mao, Wang, Dally, ICLR'18).
//
// Parameters: ratio (final density, (0, 1], default 0.001), momentum ([0, 1), 0.9),
// clip_norm (>= 0, default 0 = off), warmup_rounds (integer >= 0, 4), warmup_stages
// (default warmup_rounds; see sparsity-warmup.h), sample_ratio ((0, 1], 0.01; see
// dgc-select.h), layer_ratios (optional object: tensor name -> final density).
//
// Per client, per tensor, with momentum u and accumulation v (both zero at the start):
//
//   g' = g * min(1, clip_norm / ||g||_2)        local clipping, per tensor, if clip_norm > 0
//   u  = momentum * u + g'                      momentum correction
//   v  = v + u                                  local accumulation
//   send the k largest |v| (SelectDgc: sampled threshold, see dgc-select.h)
//   u[i] = v[i] = 0 at every sent i             momentum factor masking
//
// so that sum(sent) + v == sum over rounds of u (before masking): nothing is lost, only
// delayed. The server receives v at the sent positions, i.e. an already momentum-corrected
// update: the server must not apply momentum again.
//
// Density per tensor in round r (from BeginRound; 1-based), sparsity-warmup.h:
//   r in [1, warmup_rounds]:  max(ratio, 0.25^stage(r))   (25%, 6.25%, 1.5625%, 0.390625%)
//   otherwise (and before any BeginRound): ratio
// which is the paper's warm-up (75%, 93.75%, 98.4375%, 99.6%, 99.9% sparsity) for the
// default ratio 0.001 and warmup_rounds 4 (one stage per round). `ratio` is replaced per tensor by
// layer_ratios[name] where given. k = max(1, floor(density * d)), capped at d.
//
// clip_norm is per tensor, as in the reference code (memory.compensate runs per named
// parameter); the paper clips at the global threshold scaled by N^-1/2, so choose
// clip_norm = threshold / sqrt(clients per round).
//
// Wire format (little-endian):
//   0  payload header (u32 layout signature, u32 tensor count)
//   8  per tensor, in layout order: one sparse body (sparse-coding.h: u8 mode, u32 count,
//      delta-varint or bitmap index set, count float32 values)
// Decoding is stateless: ReadSparse per tensor, then ExpectEnd.

#include "compression/internal/codecs.h"
#include "compression/internal/sparsity-warmup.h"

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fedran::internal
{

/// dgc's warmup_rounds when the spec sets none (one stage per round: 25% ... 0.39%).
constexpr uint32_t kDgcDefaultWarmupRounds = 4;

struct DgcConfig
{
    double ratio = 0.001;
    float momentum = 0.9f;
    float clipNorm = 0.0f; ///< 0 = off
    SparsityWarmup warmup{4, 4};
    double sampleRatio = 0.01;
    std::map<std::string, double, std::less<>> layerRatios;
    std::string layerRatiosPath; ///< for errors found when the layout is first seen
};

class DgcCodec final : public RegisteredCodec
{
  public:
    DgcCodec(const CodecArgs& args, DgcConfig config);

    /// Throws CodecConfigError if layer_ratios names a tensor the layout lacks. A layout of
    /// another total size restarts from u = v = 0.
    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& rng,
                std::vector<uint8_t>& out) override;

    void Decode(const TensorLayout& layout,
                std::span<const uint8_t> payload,
                std::span<float> out) override;

    void BeginRound(uint32_t round) override
    {
        m_round = round;
    }

    std::unique_ptr<Codec> Clone() const override
    {
        return std::make_unique<DgcCodec>(*this);
    }

    /// Elements sent from a tensor of `size` at `density`.
    static uint64_t SentCount(double density, uint64_t size);

    /// Momentum u and accumulation v after the latest Encode (empty before the first).
    std::span<const float> Momentum() const
    {
        return m_momentum;
    }

    std::span<const float> Accumulation() const
    {
        return m_accumulation;
    }

  private:
    /// Resolves layer_ratios against `layout` into m_tensorRatios (once per layout).
    void ResolveRatios(const TensorLayout& layout);

    DgcConfig m_config;
    uint32_t m_round = 0;
    std::vector<float> m_momentum;
    std::vector<float> m_accumulation;
    std::vector<double> m_tensorRatios;
    std::optional<uint32_t> m_ratiosSignature; ///< layout m_tensorRatios was resolved for
    std::vector<uint32_t> m_indices;           ///< selection of the tensor being encoded
    std::vector<float> m_values;
};

} // namespace fedran::internal

#endif
