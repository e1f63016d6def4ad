// DirectConvForward against ConvForward (im2col and the matrix product), bit for bit, on every
// instruction set this CPU has. Shapes cover both register tilings (output rows at least a
// vector wide and narrower ones), padding, rows that are not a multiple of the vector width,
// channel counts that leave partial groups, and images read through per-image pointers.

#include "compression/rng.h"
#include "models/learning/conv-layer.h"
#include "models/learning/direct-conv.h"
#include "models/learning/gemm.h"

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
        image.resize(g.inChannels * inPlane);
        for (auto& x : image)
        {
            x = static_cast<float>(rng.Uniform() - 0.5);
        }
        samples.push_back(image.data());
    }
    std::vector<float> weight(c.channels * g.PatchSize());
    for (auto& x : weight)
    {
        x = static_cast<float>(rng.Uniform() - 0.5);
    }
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
    }
    EXPECT_GE(isas, 1u);
}

TEST(DirectConv, SameBitsAsIm2ColAndTheProductOnEveryInstructionSet)
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
