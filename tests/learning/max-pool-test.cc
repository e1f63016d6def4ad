// PoolBiasReluForward / Backward against a scalar reference written window by window, bit for
// bit: the vector code must give exactly the scalar results (values, argmax, bias-gradient
// sums in window order), ties, zeros and odd sizes included.

#include "compression/rng.h"
#include "models/learning/max-pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace fedran
{
namespace
{

/// Values from a small set so that windows often tie, with negatives so that the ReLU cuts.
std::vector<float>
TieProne(size_t count, Rng& rng)
{
    std::vector<float> v(count);
    for (auto& x : v)
    {
        x = static_cast<float>(static_cast<int>(rng.UniformInt(7)) - 3) * 0.25f;
    }
    return v;
}

void
ReferenceForward(const PoolShape& s,
                 const float* in,
                 const float* bias,
                 std::vector<float>& out,
                 std::vector<uint8_t>& argmax)
{
    for (size_t c = 0; c < s.channels; ++c)
    {
        for (size_t i = 0; i < s.n; ++i)
        {
            const float* plane = in + (c * s.n + i) * s.height * s.width;
            for (size_t py = 0; py < s.OutHeight(); ++py)
            {
                for (size_t px = 0; px < s.OutWidth(); ++px)
                {
                    const float w[4] = {plane[2 * py * s.width + 2 * px],
                                        plane[2 * py * s.width + 2 * px + 1],
                                        plane[(2 * py + 1) * s.width + 2 * px],
                                        plane[(2 * py + 1) * s.width + 2 * px + 1]};
                    uint8_t best = 0;
                    for (uint8_t k = 1; k < 4; ++k)
                    {
                        if (w[k] > w[best])
                        {
                            best = k;
                        }
                    }
                    out.push_back(std::max(w[best] + bias[c], 0.0f));
                    argmax.push_back(best);
                }
            }
        }
    }
}

uint32_t
Bits(float x)
{
    uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

TEST(MaxPool, VectorCodeMatchesScalarReferenceBitForBit)
{
    Rng rng(11);
    // Output widths below, at and above the four-window vector, with and without a tail; odd
    // input sizes drop a row or column.
    for (uint32_t height : {2u, 5u, 10u, 28u})
    {
        for (uint32_t width : {2u, 7u, 8u, 10u, 11u, 28u})
        {
            const PoolShape shape{3, 2, height, width};
            const std::vector<float> in = TieProne(shape.channels * shape.n * height * width, rng);
            const std::vector<float> bias{0.25f, -0.5f, 0.0f};
            std::vector<float> out(shape.OutSize());
            std::vector<uint8_t> argmax(shape.OutSize());
            PoolBiasReluForward(shape, in.data(), bias.data(), out.data(), argmax.data());
            std::vector<float> refOut;
            std::vector<uint8_t> refArgmax;
            ReferenceForward(shape, in.data(), bias.data(), refOut, refArgmax);
            ASSERT_EQ(refArgmax, argmax) << height << "x" << width;
            for (size_t i = 0; i < out.size(); ++i)
            {
                ASSERT_EQ(Bits(refOut[i]), Bits(out[i])) << height << "x" << width << " at " << i;
            }

            // Backward: the gradient lands on the window's maximum where out > 0, zero
            // elsewhere (dropped rows and columns too); the bias gradient adds window by window.
            const std::vector<float> outGrad = TieProne(out.size(), rng);
            std::vector<float> inGrad(in.size(), 99.0f);
            std::vector<float> biasGrad{1.0f, 2.0f, 3.0f};
            PoolBiasReluBackward(shape,
                                 outGrad.data(),
                                 out.data(),
                                 argmax.data(),
                                 inGrad.data(),
                                 biasGrad.data());
            std::vector<float> refIn(in.size(), 0.0f);
            std::vector<float> refBias{1.0f, 2.0f, 3.0f};
            size_t o = 0;
            for (size_t c = 0; c < shape.channels; ++c)
            {
                float sum = 0.0f;
                for (size_t i = 0; i < shape.n; ++i)
                {
                    float* plane = refIn.data() + (c * shape.n + i) * height * width;
                    for (size_t py = 0; py < shape.OutHeight(); ++py)
                    {
                        for (size_t px = 0; px < shape.OutWidth(); ++px, ++o)
                        {
                            const float g = out[o] > 0.0f ? outGrad[o] : 0.0f;
                            const size_t k = argmax[o];
                            plane[(2 * py + k / 2) * width + 2 * px + k % 2] = g;
                            sum += g;
                        }
                    }
                }
                refBias[c] += sum;
            }
            for (size_t i = 0; i < in.size(); ++i)
            {
                ASSERT_EQ(Bits(refIn[i]), Bits(inGrad[i])) << height << "x" << width << " at " << i;
            }
            for (size_t c = 0; c < 3; ++c)
            {
                ASSERT_EQ(Bits(refBias[c]), Bits(biasGrad[c]));
            }
        }
    }
}

} // namespace
} // namespace fedran
