// SparseConvBackward against ConvBackward on the dense gradient the same 2x2 max-pool leaves,
// bit for bit, on every instruction set this CPU has: the weight gradient (from zero and
// accumulated), the input gradient and the bias gradient. Shapes cover the default CNN's
// second convolution, padding, pools that drop an odd row and column, kernels with and without
// a compile-time path (3, 5 and 4), and more input channels than one vector block.

#include "compression/rng.h"
#include "model-test-util.h"
#include "models/learning/conv-layer.h"
#include "models/learning/gemm.h"
#include "models/learning/max-pool.h"
#include "models/learning/sparse-conv.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace fedran
{
namespace
{

bool
SameBits(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

struct Case
{
    ConvGeometry geometry;
    size_t channels;
    size_t n;
};

void
Check(const Case& c, bool accumulate)
{
    const ConvGeometry& g = c.geometry;
    Rng rng(g.height * 131 + g.kernel * 7 + c.n);
    const size_t inPlane = size_t{g.height} * g.width;
    const size_t plane = g.OutPlane();
    // The input channel-major across the batch (inChannels x n x height x width), as the
    // CNN's pool1 activations are.
    const std::vector<float> input = test::UniformFloats(g.inChannels * c.n * inPlane, rng);
    const std::vector<float> weight = test::UniformFloats(c.channels * g.PatchSize(), rng);
    const std::vector<float> startGrad = test::UniformFloats(c.channels * g.PatchSize(), rng);

    // A pool after the convolution: its forward pass on random outputs fixes the windows'
    // maxima and the ReLU; half its biases push outputs below zero.
    PoolShape pool{c.channels, c.n, g.OutHeight(), g.OutWidth()};
    const std::vector<float> convOut = test::UniformFloats(c.channels * c.n * plane, rng);
    std::vector<float> bias = test::UniformFloats(c.channels, rng);
    std::vector<float> pooled(pool.OutSize());
    std::vector<uint8_t> argmax(pool.OutSize());
    PoolBiasReluForward(pool, convOut.data(), bias.data(), pooled.data(), argmax.data());
    const std::vector<float> pooledGrad = test::UniformFloats(pool.OutSize(), rng);

    std::vector<float> denseGrad(convOut.size());
    std::vector<float> denseBias(c.channels, 0.25f);
    PoolBiasReluBackward(pool,
                         pooledGrad.data(),
                         pooled.data(),
                         argmax.data(),
                         denseGrad.data(),
                         denseBias.data());
    SparseOutputGrad sparse;
    std::vector<float> sparseBias(c.channels, 0.25f);
    PoolBiasReluBackwardSparse(pool,
                               pooledGrad.data(),
                               pooled.data(),
                               argmax.data(),
                               sparse,
                               sparseBias.data());
    ASSERT_TRUE(SameBits(denseBias, sparseBias));

    // The sparse entries are the dense gradient's nonzeros, positions ascending.
    size_t nonzeros = 0;
    for (size_t list = 0; list < c.channels * c.n; ++list)
    {
        std::vector<float> fromSparse(plane, 0.0f);
        for (size_t j = 0; j < sparse.count[list]; ++j)
        {
            const uint32_t p = sparse.position[list * sparse.slots + j];
            if (j > 0)
            {
                ASSERT_LT(sparse.position[list * sparse.slots + j - 1], p);
            }
            fromSparse[p] = sparse.value[list * sparse.slots + j];
        }
        const std::vector<float> fromDense(denseGrad.begin() + list * plane,
                                           denseGrad.begin() + (list + 1) * plane);
        ASSERT_EQ(fromDense, fromSparse) << "list " << list;
        nonzeros += sparse.count[list];
    }
    ASSERT_GT(nonzeros, 0u);
    ASSERT_LT(nonzeros, c.channels * c.n * plane / 4 + 1);

    // Dense: the column matrix, then ConvBackward's products and Col2Im.
    std::vector<const float*> samples(c.n);
    for (size_t s = 0; s < c.n; ++s)
    {
        samples[s] = input.data() + s * inPlane;
    }
    std::vector<float> cols(g.PatchSize() * c.n * plane);
    std::vector<float> out(c.channels * c.n * plane);
    ConvForward(g,
                samples.data(),
                c.n,
                c.n * inPlane,
                weight.data(),
                c.channels,
                out.data(),
                cols.data());
    std::vector<float> denseWeightGrad = startGrad;
    std::vector<float> denseInputGrad(input.size(), 99.0f);
    ConvScratch convScratch;
    ConvBackward(g,
                 c.n,
                 cols.data(),
                 weight.data(),
                 c.channels,
                 denseGrad.data(),
                 denseWeightGrad.data(),
                 accumulate,
                 denseInputGrad.data(),
                 convScratch);

    size_t isas = 0;
    for (GemmIsa isa : {GemmIsa::kGeneric, GemmIsa::kAvx2, GemmIsa::kAvx512})
    {
        if (!GemmIsaAvailable(isa))
        {
            continue;
        }
        ++isas;
        SparseConvScratch scratch;
        std::vector<float> weightGrad = startGrad;
        std::vector<float> inputGrad(input.size(), -7.0f);
        SparseConvBackwardOn(isa,
                             g,
                             input.data(),
                             c.n * inPlane,
                             weight.data(),
                             sparse,
                             weightGrad.data(),
                             accumulate,
                             inputGrad.data(),
                             scratch);
        EXPECT_TRUE(SameBits(denseWeightGrad, weightGrad)) << GemmIsaName(isa);
        EXPECT_TRUE(SameBits(denseInputGrad, inputGrad)) << GemmIsaName(isa);

        // Without an input gradient, the weight gradient alone is the same.
        std::vector<float> weightOnly = startGrad;
        SparseConvBackwardOn(isa,
                             g,
                             input.data(),
                             c.n * inPlane,
                             weight.data(),
                             sparse,
                             weightOnly.data(),
                             accumulate,
                             nullptr,
                             scratch);
        EXPECT_TRUE(SameBits(denseWeightGrad, weightOnly)) << GemmIsaName(isa);
    }
    EXPECT_GE(isas, 1u);
}

ConvGeometry
Geometry(uint32_t inChannels, uint32_t height, uint32_t width, uint32_t kernel, uint32_t padding)
{
    ConvGeometry g;
    g.inChannels = inChannels;
    g.height = height;
    g.width = width;
    g.kernel = kernel;
    g.padding = padding;
    return g;
}

const Case kCases[] = {
    {Geometry(16, 14, 14, 5, 0), 32, 5}, // the default CNN's second convolution
    {Geometry(3, 9, 11, 3, 1), 6, 3},    // pools drop a row and a column
    {Geometry(4, 8, 8, 4, 2), 5, 2},     // a kernel size without its own path
    {Geometry(20, 10, 10, 5, 2), 7, 2},  // two blocks of input channels
    {Geometry(1, 12, 12, 7, 3), 3, 2},
};

TEST(SparseConv, SameBitsAsTheDenseProductsOnEveryInstructionSet)
{
    for (const Case& c : kCases)
    {
        SCOPED_TRACE(testing::Message() << c.geometry.inChannels << "x" << c.geometry.height << "x"
                                        << c.geometry.width << " kernel " << c.geometry.kernel);
        Check(c, false);
    }
}

TEST(SparseConv, AccumulatesOntoTheWeightGradientAsTheDenseProductDoes)
{
    for (const Case& c : kCases)
    {
        SCOPED_TRACE(testing::Message() << c.geometry.inChannels << "x" << c.geometry.height << "x"
                                        << c.geometry.width << " kernel " << c.geometry.kernel);
        Check(c, true);
    }
}

} // namespace
} // namespace fedran
