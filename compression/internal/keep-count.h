#ifndef FEDRAN_COMPRESSION_INTERNAL_KEEP_COUNT_H
#define FEDRAN_COMPRESSION_INTERNAL_KEEP_COUNT_H

// How many elements per tensor a sparsifier keeps: the `ratio` / `k` parameters shared by
// top_k and random_k (and usable by any other "keep k" codec).

#include "compression/internal/codecs.h"

#include <cstdint>

namespace fedran::internal
{

class KeepCount
{
  public:
    /// Reads `ratio` (0 < ratio <= 1) or `k` (integer >= 1), at most one of them; neither
    /// means ratio = `defaultRatio`. Bad values fail through args.Fail, naming the key.
    static KeepCount FromArgs(CodecArgs& args, double defaultRatio);

    /// Elements kept in a tensor of `size`: max(1, floor(ratio * size)) or k, capped at size
    /// (so 0 for an empty tensor).
    uint64_t For(uint64_t size) const;

    /// The parameters as read: `ratio`, used when `K()` is 0.
    double Ratio() const
    {
        return m_ratio;
    }
    uint64_t K() const
    {
        return m_k;
    }

  private:
    KeepCount(double ratio, uint64_t k)
        : m_ratio(ratio)
        , m_k(k)
    {
    }

    double m_ratio; ///< used when m_k == 0
    uint64_t m_k;
};

} // namespace fedran::internal

#endif
