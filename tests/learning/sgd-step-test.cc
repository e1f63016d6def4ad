// The SGD step (sgd-step.h): its sum of squares behind grad_variance and update_norm keeps the
// order every trace was recorded with (that of Eigen 3.4's vectorised sum, which computed it
// before), and every instruction set's build of the step gives the generic build's bits.

#include "models/learning/eigen-config.h"
#include "models/learning/gemm.h"
#include "models/learning/sgd-step.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace fedran
{
namespace
{

float
EigenSquares(const float* d, size_t n)
{
    return Eigen::Map<const Eigen::ArrayXf>(d, static_cast<Eigen::Index>(n)).square().sum();
}

TEST(ChunkSquares, HasEigensSumsBitsAtEverySizeAndOffset)
{
    std::mt19937 rng(7);
    // Magnitudes over many binades, so that a changed order shows in the last bits.
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> exponent(-12, 12);
    alignas(64) static float data[300 + 16];
    size_t differingFromPlainLoop = 0;
    for (int repeat = 0; repeat < 4; ++repeat)
    {
        for (float& v : data)
        {
            v = std::ldexp(normal(rng), exponent(rng));
        }
        for (size_t offset = 0; offset < 5; ++offset)
        {
            for (size_t n = 0; n <= 300; ++n)
            {
                const float* d = data + offset;
                const float ours = sgd::ChunkSquares(d, n);
                ASSERT_EQ(std::bit_cast<uint32_t>(ours),
                          std::bit_cast<uint32_t>(EigenSquares(d, n)))
                    << "n " << n << " offset " << offset;
                float plain = 0.0f;
                for (size_t k = 0; k < n; ++k)
                {
                    plain += d[k] * d[k];
                }
                differingFromPlainLoop += plain != ours;
            }
        }
    }
    // The check above could not tell orders apart if every order gave the same sums.
    EXPECT_GT(differingFromPlainLoop, 1000u);
}

/// Floats over many binades, some zero, so that a changed operation shows in the bits.
std::vector<float>
Floats(size_t n, std::mt19937& rng)
{
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> exponent(-20, 4);
    std::vector<float> v(n);
    for (float& x : v)
    {
        x = rng() % 16 == 0 ? 0.0f : std::ldexp(normal(rng), exponent(rng));
    }
    return v;
}

bool
SameBits(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(SgdStep, EveryInstructionSetsBuildGivesTheGenericBits)
{
    const GemmIsa isas[] = {GemmIsa::kAvx2, GemmIsa::kAvx512};
    size_t compared = 0;
    // An MLP's size (a partial last pass of chunks), a small model and less than one chunk.
    for (const size_t size : {size_t{199210}, size_t{7850}, size_t{37}})
    {
        std::mt19937 rng(static_cast<uint32_t>(size));
        const std::vector<float> params = Floats(size, rng);
        const std::vector<float> grad = Floats(size, rng);
        const std::vector<float> previous = Floats(size, rng);
        const std::vector<float> start = Floats(size, rng);
        const std::vector<float> velocity = Floats(size, rng);
        const sgd::StepCoefficients c{0.05f, 0.9f, 1e-4f, 0.01f};
        for (int variant = 0; variant < 16; ++variant)
        {
            const bool momentum = variant & 8;
            const bool decay = variant & 4;
            const bool prox = variant & 2;
            const bool variance = variant & 1;
            const auto run = [&](GemmIsa isa, std::vector<float>& w, std::vector<float>& v) {
                w = params;
                v = velocity;
                const sgd::StepBuffers b{w.data(),
                                         grad.data(),
                                         previous.data(),
                                         start.data(),
                                         v.data(),
                                         size};
                return sgd::PickStep(isa, momentum, decay, prox, variance)(b, c);
            };
            std::vector<float> w0;
            std::vector<float> v0;
            const double squares0 = run(GemmIsa::kGeneric, w0, v0);
            EXPECT_EQ(squares0 > 0.0, variance);
            EXPECT_FALSE(SameBits(w0, params));
            for (const GemmIsa isa : isas)
            {
                if (!GemmIsaAvailable(isa))
                {
                    continue;
                }
                std::vector<float> w;
                std::vector<float> v;
                const double squares = run(isa, w, v);
                EXPECT_EQ(std::bit_cast<uint64_t>(squares), std::bit_cast<uint64_t>(squares0))
                    << GemmIsaName(isa) << " variant " << variant << " size " << size;
                EXPECT_TRUE(SameBits(w, w0)) << GemmIsaName(isa) << " variant " << variant;
                EXPECT_TRUE(SameBits(v, v0)) << GemmIsaName(isa) << " variant " << variant;
                ++compared;
            }
        }
    }
    if (compared == 0)
    {
        GTEST_SKIP() << "no AVX2 on this CPU or build: only the generic step";
    }
}

} // namespace
} // namespace fedran
