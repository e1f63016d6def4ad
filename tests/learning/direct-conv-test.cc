// DirectConvForward against ConvForward (im2col and the matrix product), and
// DirectConvWeightGrad against ConvBackward's weight gradient (from zero and accumulated), bit
// for bit, on every instruction set this CPU has. Shapes cover both register tilings (output rows
// at least a vector wide and narrower ones), padding, rows that are not a multiple of the vector
// width, channel counts that leave partial groups, and images read through per-image pointers.

#include "compression/rng.h"
#include "model-test-util.h"
#include "models/learning/conv-layer.h"
#include "models/learning/direct-conv.h"
#include "models/learning/gemm.h"
#include "models/learning/max-pool.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace fedran
{
namespace
{

struct Case
{
    uint32_t inChannels, height, width, kernel, padding;
    size_t channels, n;
};

void
Check(const Case& c)
{
    ConvGeometry g;
    g.inChannels = c.inChannels;
    g.height = c.height;
    g.width = c.width;
    g.kernel = c.kernel;
    g.padding = c.padding;
    Rng rng(c.height * 17 + c.channels);
    const size_t inPlane = size_t{g.height} * g.width;
    // Each image its own channel-major block, apart from the others.
    std::vector<std::vector<float>> images(c.n);
    std::vector<const float*> samples;
    for (auto& image : images)
    {
        image = test::UniformFloats(g.inChannels * inPlane, rng);
        samples.push_back(image.data());
    }
    const std::vector<float> weight = test::UniformFloats(c.channels * g.PatchSize(), rng);
    const size_t outFloats = c.channels * c.n * g.OutPlane();
    std::vector<float> expected(outFloats);
    std::vector<float> cols(g.PatchSize() * c.n * g.OutPlane());
    ConvForward(g,
                samples.data(),
                c.n,
                inPlane,
                weight.data(),
                c.channels,
                expected.data(),
                cols.data());
    // A gradient with zeros among its entries, as a pool leaves it, and the dense weight
    // gradient accumulated onto a start.
    std::vector<float> outGrad(outFloats);
    for (auto& x : outGrad)
    {
        x = rng.Uniform() < 0.6 ? 0.0f : static_cast<float>(rng.Uniform() - 0.5);
    }
    const size_t lanes = DirectConvChannelLanes(c.channels);
    std::vector<float> outGradT(c.n * g.OutPlane() * lanes, 0.0f);
    for (size_t ch = 0; ch < c.channels; ++ch)
    {
        for (size_t column = 0; column < c.n * g.OutPlane(); ++column)
        {
            outGradT[column * lanes + ch] = outGrad[ch * c.n * g.OutPlane() + column];
        }
    }
    const std::vector<float> start = test::UniformFloats(weight.size(), rng);
    ConvScratch convScratch;
    std::vector<float> expectedGrad(weight.size(), 0.0f);
    ConvBackward(g,
                 c.n,
                 cols.data(),
                 weight.data(),
                 c.channels,
                 outGrad.data(),
                 expectedGrad.data(),
                 false,
                 nullptr,
                 convScratch);
    std::vector<float> expectedAccumulated = start;
    ConvBackward(g,
                 c.n,
                 cols.data(),
                 weight.data(),
                 c.channels,
                 outGrad.data(),
                 expectedAccumulated.data(),
                 true,
                 nullptr,
                 convScratch);

    size_t isas = 0;
    for (GemmIsa isa : {GemmIsa::kGeneric, GemmIsa::kAvx2, GemmIsa::kAvx512})
    {
        if (!GemmIsaAvailable(isa))
        {
            continue;
        }
        ++isas;
        std::vector<float> out(outFloats, 42.0f);
        DirectConvScratch scratch;
        DirectConvForwardOn(isa,
                            g,
                            samples.data(),
                            c.n,
                            inPlane,
                            weight.data(),
                            c.channels,
                            out.data(),
                            scratch);
        EXPECT_EQ(0, std::memcmp(expected.data(), out.data(), outFloats * sizeof(float)))
            << GemmIsaName(isa);

        // The weight gradient over the padded images this forward pass kept.
        std::vector<float> grad(weight.size(), 7.0f);
        DirectConvWeightGradOn(isa,
                               g,
                               c.n,
                               c.channels,
                               outGradT.data(),
                               grad.data(),
                               false,
                               scratch);
        EXPECT_EQ(0, std::memcmp(expectedGrad.data(), grad.data(), grad.size() * sizeof(float)))
            << GemmIsaName(isa);
        std::vector<float> accumulated = start;
        DirectConvWeightGradOn(isa,
                               g,
                               c.n,
                               c.channels,
                               outGradT.data(),
                               accumulated.data(),
                               true,
                               scratch);
        EXPECT_EQ(0,
                  std::memcmp(expectedAccumulated.data(),
                              accumulated.data(),
                              accumulated.size() * sizeof(float)))
            << GemmIsaName(isa);
    }
    EXPECT_GE(isas, 1u);
}

TEST(DirectConv, ForwardAndWeightGradientHaveTheProductsBitsOnEveryInstructionSet)
{
    const Case cases[] = {
        {1, 28, 28, 5, 2, 16, 3},  // the default CNN's first convolution: rows of 28
        {16, 14, 14, 5, 0, 32, 3}, // its second: rows of 10
        {3, 20, 21, 3, 1, 13, 2},  // rows of 21, 13 channels
        {2, 6, 7, 3, 0, 40, 2},    // rows of 5, channels over two blocks and a half
        {5, 9, 30, 4, 1, 7, 1},    // an even kernel, rows of 29
    };
    for (const Case& c : cases)
    {
        SCOPED_TRACE(testing::Message() << c.inChannels << "x" << c.height << "x" << c.width
                                        << " kernel " << c.kernel << " -> " << c.channels);
        Check(c);
    }
}

} // namespace
} // namespace fedran

namespace fedran
{
namespace
{

TEST(PoolBackward, PositionMajorGradientIsTheDenseOneTransposed)
{
    Rng rng(5);
    const PoolShape shape{5, 3, 9, 12}; // an odd height: the last row is dropped
    const std::vector<float> in =
        test::UniformFloats(shape.channels * shape.n * shape.height * shape.width, rng);
    const std::vector<float> bias{-0.2f, 0.0f, 0.1f, 0.3f, -0.4f};
    std::vector<float> out(shape.OutSize());
    std::vector<uint8_t> argmax(shape.OutSize());
    PoolBiasReluForward(shape, in.data(), bias.data(), out.data(), argmax.data());
    const std::vector<float> outGrad = test::UniformFloats(shape.OutSize(), rng);
    std::vector<float> dense(in.size(), 5.0f);
    std::vector<float> denseBias(shape.channels, 1.0f);
    PoolBiasReluBackward(shape,
                         outGrad.data(),
                         out.data(),
                         argmax.data(),
                         dense.data(),
                         denseBias.data());
    const size_t lanes = 16;
    const size_t plane = size_t{shape.height} * shape.width;
    std::vector<float> transposed(shape.n * plane * lanes, 5.0f);
    std::vector<float> transposedBias(shape.channels, 1.0f);
    PoolBiasReluBackwardChannelsLast(shape,
                                     outGrad.data(),
                                     out.data(),
                                     argmax.data(),
                                     transposed.data(),
                                     lanes,
                                     transposedBias.data());
    EXPECT_EQ(denseBias, transposedBias);
    for (size_t s = 0; s < shape.n; ++s)
    {
        for (size_t p = 0; p < plane; ++p)
        {
            for (size_t c = 0; c < lanes; ++c)
            {
                const float expected =
                    c < shape.channels ? dense[(c * shape.n + s) * plane + p] : 0.0f;
                ASSERT_EQ(expected, transposed[(s * plane + p) * lanes + c])
                    << s << " " << p << " " << c;
            }
        }
    }
}

} // namespace
} // namespace fedran
