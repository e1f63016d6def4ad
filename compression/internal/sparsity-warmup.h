#ifndef FEDRAN_COMPRESSION_INTERNAL_SPARSITY_WARMUP_H
#define FEDRAN_COMPRESSION_INTERNAL_SPARSITY_WARMUP_H

// Warm-up sparsity for the sparsifiers (dgc, top_k): dense early, sparser later, as in Deep
// Gradient Compression (Lin et al., ICLR'18, sec. 3.3: 75% -> 93.75% -> 98.4375% -> 99.6%
// sparsity over the first epochs). Early updates are large and change direction fast; sending
// only 0.1% of them then delays most of the signal in the residual.
//
// Parameters (read from the codec's spec):
//   warmup_rounds  rounds the warm-up lasts (integer >= 0; 0 = none)
//   warmup_stages  density steps within them (integer in [1, warmup_rounds]; default
//                  warmup_rounds, i.e. one step per round)
// Round r in [1, warmup_rounds] is in stage s = ceil(r * warmup_stages / warmup_rounds), and
// the density is max(ratio, 0.25^s): 25%, 6.25%, 1.5625%, 0.390625%, ... Outside the warm-up,
// and before any BeginRound (round 0), the codec's own ratio. For example warmup_rounds 20,
// warmup_stages 4 with ratio 0.001: rounds 1-5 25%, 6-10 6.25%, 11-15 1.56%, 16-20 0.39%,
// then 0.1%.
//
// Both ends of a link are told the round (Codec::BeginRound), so a decoder that knows the
// count it must find (top_k) follows the same schedule.

#include "compression/internal/codecs.h"

#include <cstdint>
#include <string>

namespace fedran::internal
{

class SparsityWarmup
{
  public:
    /// Reads warmup_rounds (default `defaultRounds`) and warmup_stages; bad values fail
    /// through args.Fail, naming the key.
    static SparsityWarmup FromArgs(CodecArgs& args, uint32_t defaultRounds);

    /// The same schedule over other units (dgc's mode "step" counts epochs): `lengthKey`
    /// (e.g. "warmup_epochs", default `defaultLength`) replaces warmup_rounds, and the 1-based
    /// argument of MinDensity and Density is then an epoch.
    static SparsityWarmup FromArgs(CodecArgs& args,
                                   const std::string& lengthKey,
                                   uint32_t defaultLength);

    /// `stages` in [1, rounds] unless rounds is 0.
    SparsityWarmup(uint32_t rounds, uint32_t stages);

    /// The lowest density allowed in `round`: 0.25^stage during the warm-up, 0 otherwise.
    double MinDensity(uint32_t round) const;

    /// max(ratio, MinDensity(round)).
    double Density(double ratio, uint32_t round) const;

    /// Whether some round has a MinDensity above 0.
    bool Active() const
    {
        return m_rounds > 0;
    }

  private:
    uint32_t m_rounds;
    uint32_t m_stages;
};

} // namespace fedran::internal

#endif
