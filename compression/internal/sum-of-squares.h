#ifndef FEDRAN_COMPRESSION_INTERNAL_SUM_OF_SQUARES_H
#define FEDRAN_COMPRESSION_INTERNAL_SUM_OF_SQUARES_H

#include <cstddef>
#include <span>

namespace fedran::internal
{

/// sum(x_i^2) accumulated in double. Eight independent partial sums let the loop vectorise
/// without -ffast-math while keeping the result independent of the host: the summation order
/// is fixed by the code, not by the compiler.
inline double
SumOfSquares(std::span<const float> x)
{
    constexpr size_t kLanes = 8;
    double partial[kLanes] = {};
    const size_t n = x.size();
    const float* p = x.data();
    size_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
    {
        for (size_t lane = 0; lane < kLanes; ++lane)
        {
            const double value = p[i + lane];
            partial[lane] += value * value;
        }
    }
    for (size_t lane = 0; i < n; ++i, ++lane)
    {
        const double value = p[i];
        partial[lane] += value * value;
    }
    double sum = 0.0;
    for (const double value : partial)
    {
        sum += value;
    }
    return sum;
}

} // namespace fedran::internal

#endif
