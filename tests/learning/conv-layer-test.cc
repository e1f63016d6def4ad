// ConvForward / ConvBackward against a scalar reference that follows the order the layer
// promises, bit for bit: every output and column-gradient element one chain of std::fma over
// its depth in increasing order (zero-padding taps included, as in the column matrix), the
// weight gradient one chain over every position of every image, and the input gradient summed
// tap by tap. Shapes with several blocks of images, padding and accumulation.

#include "compression/rng.h"
#include "model-test-util.h"
#include "models/learning/conv-layer.h"
#include "models/learning/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace fedran
{
namespace
{

/// The input pixel a column entry reads, or -1 in the padding.
long
Source(const ConvGeometry& g, size_t c, size_t ky, size_t kx, size_t oy, size_t ox)
{
    const long iy = static_cast<long>(oy + ky) - static_cast<long>(g.padding);
    const long ix = static_cast<long>(ox + kx) - static_cast<long>(g.padding);
    if (iy < 0 || ix < 0 || iy >= static_cast<long>(g.height) || ix >= static_cast<long>(g.width))
    {
        return -1;
    }
    return static_cast<long>((c * g.height + static_cast<size_t>(iy)) * g.width +
                             static_cast<size_t>(ix));
}

void
CheckLayer(const ConvGeometry& g, size_t channels, size_t n, bool accumulate)
{
    Rng rng(g.height * 31 + n);
    const size_t plane = g.OutPlane();
    const size_t patch = g.PatchSize();
    const size_t inPlane = size_t{g.height} * g.width;
    // Image s is its own channel-major block (channelStride = one plane).
    std::vector<std::vector<float>> images;
    std::vector<const float*> samples;
    for (size_t s = 0; s < n; ++s)
    {
        images.push_back(test::UniformFloats(g.inChannels * inPlane, rng));
    }
    for (const auto& image : images)
    {
        samples.push_back(image.data());
    }
    const std::vector<float> weight = test::UniformFloats(channels * patch, rng);
    const std::vector<float> outGrad = test::UniformFloats(channels * n * plane, rng);
    const std::vector<float> startGrad = test::UniformFloats(channels * patch, rng);

    // The reference column matrix, with zeros in the padding.
    std::vector<float> cols(patch * n * plane);
    for (size_t q = 0; q < patch; ++q)
    {
        const size_t c = q / (g.kernel * g.kernel);
        const size_t ky = q / g.kernel % g.kernel;
        const size_t kx = q % g.kernel;
        for (size_t s = 0; s < n; ++s)
        {
            for (size_t pos = 0; pos < plane; ++pos)
            {
                const long src = Source(g, c, ky, kx, pos / g.OutWidth(), pos % g.OutWidth());
                cols[q * n * plane + s * plane + pos] = src < 0 ? 0.0f : images[s][src];
            }
        }
    }

    std::vector<float> out(channels * n * plane);
    std::vector<float> layerCols(patch * n * plane);
    ConvForward(g,
                samples.data(),
                n,
                inPlane,
                weight.data(),
                channels,
                out.data(),
                layerCols.data());
    ASSERT_EQ(cols, layerCols);
    for (size_t o = 0; o < channels; ++o)
    {
        for (size_t j = 0; j < n * plane; ++j)
        {
            float sum = 0.0f;
            for (size_t q = 0; q < patch; ++q)
            {
                sum = std::fma(weight[o * patch + q], cols[q * n * plane + j], sum);
            }
            ASSERT_EQ(sum, out[o * n * plane + j]) << o << " " << j;
        }
    }

    std::vector<float> weightGrad = startGrad;
    std::vector<float> inputGrad(g.inChannels * n * inPlane, 99.0f);
    ConvScratch scratch;
    ConvBackward(g,
                 n,
                 layerCols.data(),
                 weight.data(),
                 channels,
                 outGrad.data(),
                 weightGrad.data(),
                 accumulate,
                 inputGrad.data(),
                 scratch);
    for (size_t o = 0; o < channels; ++o)
    {
        for (size_t q = 0; q < patch; ++q)
        {
            float sum = accumulate ? startGrad[o * patch + q] : 0.0f;
            for (size_t j = 0; j < n * plane; ++j)
            {
                sum = std::fma(outGrad[o * n * plane + j], cols[q * n * plane + j], sum);
            }
            ASSERT_EQ(sum, weightGrad[o * patch + q]) << o << " " << q;
        }
    }
    // Input gradient: channel-major (inChannels x n x height x width), summed tap by tap.
    std::vector<float> expected(g.inChannels * n * inPlane, 0.0f);
    for (size_t q = 0; q < patch; ++q)
    {
        const size_t c = q / (g.kernel * g.kernel);
        const size_t ky = q / g.kernel % g.kernel;
        const size_t kx = q % g.kernel;
        for (size_t s = 0; s < n; ++s)
        {
            for (size_t pos = 0; pos < plane; ++pos)
            {
                float colGrad = 0.0f;
                for (size_t o = 0; o < channels; ++o)
                {
                    colGrad = std::fma(weight[o * patch + q],
                                       outGrad[o * n * plane + s * plane + pos],
                                       colGrad);
                }
                const long src = Source(g, c, ky, kx, pos / g.OutWidth(), pos % g.OutWidth());
                if (src >= 0)
                {
                    const size_t pixel = static_cast<size_t>(src) % inPlane;
                    expected[(c * n + s) * inPlane + pixel] += colGrad;
                }
            }
        }
    }
    ASSERT_EQ(expected, inputGrad);
}

TEST(ConvLayer, MatchesOrderedFmaReferenceBitForBit)
{
    SetGemmKind(GemmKind::kPortable);
    // The default CNN's second convolution (several blocks of images, the last one short).
    CheckLayer({16, 14, 14, 5, 0}, 32, 7, false);
    // A padded first layer over a non-square image, accumulating into the weight gradient.
    CheckLayer({2, 12, 11, 3, 1}, 3, 5, true);
    // One image, one channel.
    CheckLayer({1, 28, 28, 5, 2}, 4, 1, false);
}

} // namespace
} // namespace fedran
