// Gemm: every kernel and transpose combination, leading dimensions wider than the matrices,
// accumulation, and shapes around Eigen's blocking sizes, against a naive double-precision
// product; and the portable kernels bit for bit against a loop of std::fma in their order.

#include "compression/rng.h"
#include "models/learning/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace fedran
{
namespace
{

struct Stored
{
    size_t rows;
    size_t cols;
    size_t ld;
    std::vector<float> v;

    float At(size_t i, size_t j) const
    {
        return v[i * ld + j];
    }
};

Stored
Random(size_t rows, size_t cols, size_t pad, Rng& rng)
{
    Stored m{rows, cols, cols + pad, std::vector<float>(rows * (cols + pad))};
    for (auto& x : m.v)
    {
        x = static_cast<float>(rng.Uniform() - 0.5);
    }
    return m;
}

void
Check(GemmIsa isa, GemmKind kind, size_t m, size_t n, size_t k, Op opA, Op opB, bool accumulate)
{
    SCOPED_TRACE(testing::Message() << GemmKindName(kind) << "-" << GemmIsaName(isa) << " " << m
                                    << "x" << n << "x" << k << " opA " << (opA == Op::kTranspose)
                                    << " opB " << (opB == Op::kTranspose) << " acc " << accumulate);
    Rng rng(m * 131 + n * 17 + k);
    const bool ta = opA == Op::kTranspose;
    const bool tb = opB == Op::kTranspose;
    const Stored a = ta ? Random(k, m, 3, rng) : Random(m, k, 3, rng);
    const Stored b = tb ? Random(n, k, 1, rng) : Random(k, n, 1, rng);
    Stored c = Random(m, n, 2, rng);
    const Stored before = c;
    GemmOn(isa,
           kind,
           opA,
           opB,
           m,
           n,
           k,
           a.v.data(),
           a.ld,
           b.v.data(),
           b.ld,
           c.v.data(),
           c.ld,
           accumulate);
    for (size_t i = 0; i < m; ++i)
    {
        for (size_t j = 0; j < n; ++j)
        {
            double sum = accumulate ? before.At(i, j) : 0.0;
            for (size_t p = 0; p < k; ++p)
            {
                sum += double{ta ? a.At(p, i) : a.At(i, p)} * (tb ? b.At(j, p) : b.At(p, j));
            }
            ASSERT_NEAR(c.At(i, j), sum, 1e-5 * (1.0 + std::sqrt(static_cast<double>(k))))
                << i << "," << j;
        }
        // The padding between rows is left alone.
        for (size_t j = n; j < c.ld; ++j)
        {
            ASSERT_EQ(c.At(i, j), before.At(i, j));
        }
    }
}

/// Every kernel this CPU runs (the generic one at least), so that a machine with AVX-512
/// tests all three builds.
std::vector<GemmIsa>
AvailableIsas()
{
    std::vector<GemmIsa> isas;
    for (GemmIsa isa : {GemmIsa::kGeneric, GemmIsa::kAvx2, GemmIsa::kAvx512})
    {
        if (GemmIsaAvailable(isa))
        {
            isas.push_back(isa);
        }
    }
    return isas;
}

TEST(Gemm, MatchesNaiveProductForEveryKernelAndTransposeCombination)
{
    ASSERT_TRUE(GemmIsaAvailable(GemmIsa::kGeneric));
    EXPECT_TRUE(GemmIsaAvailable(ActiveGemmIsa()));
    for (GemmIsa isa : AvailableIsas())
    {
        for (GemmKind kind : {GemmKind::kPortable, GemmKind::kFast})
        {
            for (Op opA : {Op::kNone, Op::kTranspose})
            {
                for (Op opB : {Op::kNone, Op::kTranspose})
                {
                    for (bool accumulate : {false, true})
                    {
                        Check(isa, kind, 1, 1, 1, opA, opB, accumulate);
                        Check(isa, kind, 7, 5, 3, opA, opB, accumulate);
                        Check(isa, kind, 32, 200, 784, opA, opB, accumulate); // an MLP layer
                        Check(isa, kind, 200, 784, 32, opA, opB, accumulate); // its gradient
                        Check(isa, kind, 16, 1500, 25, opA, opB, accumulate); // a convolution
                    }
                }
            }
        }
    }
}

/// c = op(a) op(b) (+ c) summed the way the portable kernels promise: in increasing depth,
/// one fused multiply-add (a single rounding) per term.
std::vector<float>
OrderedFmaProduct(const Stored& a,
                  const Stored& b,
                  const Stored& c,
                  size_t m,
                  size_t n,
                  size_t k,
                  bool ta,
                  bool tb,
                  bool accumulate)
{
    std::vector<float> out = c.v;
    for (size_t i = 0; i < m; ++i)
    {
        for (size_t j = 0; j < n; ++j)
        {
            float sum = accumulate ? c.At(i, j) : 0.0f;
            for (size_t p = 0; p < k; ++p)
            {
                sum = std::fma(ta ? a.At(p, i) : a.At(i, p), tb ? b.At(j, p) : b.At(p, j), sum);
            }
            out[i * c.ld + j] = sum;
        }
    }
    return out;
}

TEST(Gemm, PortableKernelsGiveTheSameBitsOnEveryInstructionSet)
{
    struct Shape
    {
        size_t m, n, k;
    };
    // Around the tiles (4 rows, 8 to 32 columns; 8 rows for one vector of columns) and the
    // 256-deep chunks, and the models' own; panels of b read in place (full widths of 24 and
    // 64 columns), and a convolution's weight gradient (long depth, one vector of columns).
    const Shape shapes[] = {{1, 1, 1},
                            {5, 33, 257},
                            {32, 200, 784},
                            {200, 784, 32},
                            {16, 1500, 25},
                            {3, 7, 600},
                            {25, 16, 600},
                            {9, 130, 300},
                            {19, 192, 40},
                            {40, 32, 700}};
    size_t compared = 0;
    for (const Shape& s : shapes)
    {
        for (bool ta : {false, true})
        {
            for (bool tb : {false, true})
            {
                for (bool accumulate : {false, true})
                {
                    Rng rng(s.m * 7 + s.n * 3 + s.k);
                    const Stored a = ta ? Random(s.k, s.m, 2, rng) : Random(s.m, s.k, 2, rng);
                    const Stored b = tb ? Random(s.n, s.k, 1, rng) : Random(s.k, s.n, 1, rng);
                    const Stored c0 = Random(s.m, s.n, 3, rng);
                    const std::vector<float> expected =
                        OrderedFmaProduct(a, b, c0, s.m, s.n, s.k, ta, tb, accumulate);
                    for (GemmIsa isa : AvailableIsas())
                    {
                        Stored c = c0;
                        GemmOn(isa,
                               GemmKind::kPortable,
                               ta ? Op::kTranspose : Op::kNone,
                               tb ? Op::kTranspose : Op::kNone,
                               s.m,
                               s.n,
                               s.k,
                               a.v.data(),
                               a.ld,
                               b.v.data(),
                               b.ld,
                               c.v.data(),
                               c.ld,
                               accumulate);
                        ASSERT_EQ(c.v, expected)
                            << GemmIsaName(isa) << " " << s.m << "x" << s.n << "x" << s.k << " ta "
                            << ta << " tb " << tb << " acc " << accumulate;
                        ++compared;
                    }
                }
            }
        }
    }
    EXPECT_GE(compared, 48u);
}

// Where rounding the exact product-sum first to double and then to float gives another float
// than one rounding would: (1 + 2^-12)^2 + 2^-60 lies just above a float midpoint, but its
// double rounding is the midpoint itself, which ties to even. The build without an FMA
// instruction must still give std::fma's answer, as must every other.
TEST(Gemm, PortableKernelsRoundOnceWhereDoubleRoundingWouldNot)
{
    const float a = 1.0f + std::ldexp(1.0f, -12);
    const float tiny = std::ldexp(1.0f, -60);
    const float exact = std::fma(a, a, tiny);
    ASSERT_NE(exact, static_cast<float>(double(a) * double(a) + double(tiny)));
    for (const float sign : {1.0f, -1.0f})
    {
        for (GemmIsa isa : AvailableIsas())
        {
            // 5 x 9 identical cases: full register tiles, lanes and the tails all see one.
            std::vector<float> x(5, sign * a);
            std::vector<float> y(9, a);
            std::vector<float> c(5 * 9, sign * tiny);
            GemmOn(isa,
                   GemmKind::kPortable,
                   Op::kNone,
                   Op::kNone,
                   5,
                   9,
                   1,
                   x.data(),
                   1,
                   y.data(),
                   9,
                   c.data(),
                   9,
                   true);
            for (const float value : c)
            {
                ASSERT_EQ(value, std::fma(sign * a, a, sign * tiny)) << GemmIsaName(isa);
            }
        }
    }
}

TEST(Gemm, GemmUsesTheActiveKernelBitForBit)
{
    Rng rng(3);
    const Stored a = Random(32, 784, 0, rng);
    const Stored b = Random(200, 784, 0, rng);
    std::vector<float> viaGemm(32 * 200);
    std::vector<float> viaActive(32 * 200);
    Gemm(Op::kNone,
         Op::kTranspose,
         32,
         200,
         784,
         a.v.data(),
         784,
         b.v.data(),
         784,
         viaGemm.data(),
         200);
    GemmOn(ActiveGemmIsa(),
           ActiveGemmKind(),
           Op::kNone,
           Op::kTranspose,
           32,
           200,
           784,
           a.v.data(),
           784,
           b.v.data(),
           784,
           viaActive.data(),
           200);
    EXPECT_EQ(viaGemm, viaActive);
}

TEST(Gemm, EmptyDepthClearsOrKeepsTheResult)
{
    std::vector<float> c{1, 2, 3, 4};
    Gemm(Op::kNone, Op::kNone, 2, 2, 0, nullptr, 1, nullptr, 2, c.data(), 2, true);
    EXPECT_EQ(c, (std::vector<float>{1, 2, 3, 4}));
    Gemm(Op::kNone, Op::kNone, 2, 2, 0, nullptr, 1, nullptr, 2, c.data(), 2, false);
    EXPECT_EQ(c, (std::vector<float>{0, 0, 0, 0}));
}

} // namespace
} // namespace fedran
