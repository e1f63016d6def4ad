#include "models/learning/max-pool.h"

#include <algorithm>

namespace fedran
{

void
PoolBiasReluForward(const PoolShape& shape,
                    const float* in,
                    const float* biases,
                    float* out,
                    uint8_t* argmax)
{
    const size_t outHeight = shape.OutHeight();
    const size_t outWidth = shape.OutWidth();
    const size_t inPlane = size_t{shape.height} * shape.width;
    for (size_t c = 0; c < shape.channels; ++c)
    {
        const float bias = biases[c];
        for (size_t s = 0; s < shape.n; ++s)
        {
            const float* plane = in + (c * shape.n + s) * inPlane;
            for (size_t py = 0; py < outHeight; ++py)
            {
                const float* top = plane + 2 * py * shape.width;
                const float* bottom = top + shape.width;
                for (size_t px = 0; px < outWidth; ++px)
                {
                    // Pairwise and branch-free (the winner is data-dependent, so branches
                    // mispredict): std::max and comparisons turned into integers compile to
                    // maxss/setcc. A strict > keeps the first maximum in the order 0..3.
                    const float a = top[2 * px];
                    const float b = top[2 * px + 1];
                    const float c = bottom[2 * px];
                    const float d = bottom[2 * px + 1];
                    const float upper = std::max(a, b); // a unless b > a
                    const float lower = std::max(c, d);
                    const int upperIndex = static_cast<int>(b > a);
                    const int lowerIndex = 2 + static_cast<int>(d > c);
                    const int lowerWins = static_cast<int>(lower > upper);
                    *argmax++ =
                        static_cast<uint8_t>(upperIndex + lowerWins * (lowerIndex - upperIndex));
                    *out++ = std::max(std::max(upper, lower) + bias, 0.0f);
                }
            }
        }
    }
}

void
PoolBiasReluBackward(const PoolShape& shape,
                     const float* outGrad,
                     const float* out,
                     const uint8_t* argmax,
                     float* inGrad,
                     float* biasGrad)
{
    const size_t outHeight = shape.OutHeight();
    const size_t outWidth = shape.OutWidth();
    const size_t inPlane = size_t{shape.height} * shape.width;
    // Clear each plane, then store every window's gradient at its maximum: two simple passes
    // beat writing four selected values per window.
    for (size_t c = 0; c < shape.channels; ++c)
    {
        float sum = 0.0f;
        for (size_t s = 0; s < shape.n; ++s)
        {
            float* plane = inGrad + (c * shape.n + s) * inPlane;
            std::fill(plane, plane + inPlane, 0.0f);
            for (size_t py = 0; py < outHeight; ++py)
            {
                float* top = plane + 2 * py * shape.width;
                for (size_t px = 0; px < outWidth; ++px, ++outGrad, ++out, ++argmax)
                {
                    // Branch-free: where the ReLU was off the store writes a zero.
                    const float g = *out > 0.0f ? *outGrad : 0.0f;
                    const size_t k = *argmax;
                    top[2 * px + (k & 1) + (k >> 1) * shape.width] = g;
                    sum += g;
                }
            }
        }
        biasGrad[c] += sum;
    }
}

} // namespace fedran
