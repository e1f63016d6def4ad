// pmath: accurate to a couple of ulps against long double on each function's domain, exact
// where the answer is exact, IEEE special values, and fixed bits for fixed inputs (the values
// below are what every x86-64 must compute; a change of algorithm changes them on purpose).

#include "compression/portable-math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace fedran
{
namespace
{

/// |a - ref| in units of the last place of ref rounded to double.
double
UlpsFrom(double a, long double ref)
{
    const double r = static_cast<double>(ref);
    if (a == r)
    {
        return 0.0;
    }
    const double ulp =
        std::nextafter(std::fabs(r), std::numeric_limits<double>::infinity()) - std::fabs(r);
    return static_cast<double>(std::fabs(static_cast<long double>(a) - ref) / ulp);
}

/// A fixed sequence in [0, 1) (xorshift), so the test does not depend on any libm.
class Sequence
{
  public:
    double Next()
    {
        m_s ^= m_s << 13;
        m_s ^= m_s >> 7;
        m_s ^= m_s << 17;
        return static_cast<double>(m_s >> 11) * 0x1.0p-53;
    }

  private:
    uint64_t m_s = 88172645463325252ULL;
};

TEST(PortableMath, WithinTwoUlpsOfLongDouble)
{
    Sequence u;
    double worst[6] = {};
    for (int i = 0; i < 200000; ++i)
    {
        const double x = (u.Next() - 0.5) * 1400.0;
        worst[0] =
            std::max(worst[0], UlpsFrom(pmath::Exp(x), std::exp(static_cast<long double>(x))));
        const double y = std::ldexp(1.0 + u.Next(), static_cast<int>(u.Next() * 2000.0) - 1000);
        worst[1] =
            std::max(worst[1], UlpsFrom(pmath::Log(y), std::log(static_cast<long double>(y))));
        const double near1 = 1.0 + (u.Next() - 0.5) * 0.01;
        worst[2] = std::max(worst[2],
                            UlpsFrom(pmath::Log(near1), std::log(static_cast<long double>(near1))));
        const double a = (u.Next() - 0.5) * 200.0;
        worst[3] =
            std::max(worst[3], UlpsFrom(pmath::Cos(a), std::cos(static_cast<long double>(a))));
        worst[4] =
            std::max(worst[4], UlpsFrom(pmath::Sin(a), std::sin(static_cast<long double>(a))));
        const double base = 0.5 + u.Next() * 10.0;
        const double power = (u.Next() - 0.5) * 8.0;
        worst[5] = std::max(
            worst[5],
            UlpsFrom(pmath::Pow(base, power),
                     std::pow(static_cast<long double>(base), static_cast<long double>(power))));
    }
    EXPECT_LE(worst[0], 2.0) << "Exp";
    EXPECT_LE(worst[1], 2.0) << "Log";
    EXPECT_LE(worst[2], 2.0) << "Log near 1";
    EXPECT_LE(worst[3], 2.0) << "Cos";
    EXPECT_LE(worst[4], 2.0) << "Sin";
    EXPECT_LE(worst[5], 16.0) << "Pow"; // exp(y log x) loses |y log x| ulps; here |y log x| < 10
}

TEST(PortableMath, ExactWhereTheAnswerIsExact)
{
    EXPECT_EQ(pmath::Exp(0.0), 1.0);
    EXPECT_EQ(pmath::Log(1.0), 0.0);
    EXPECT_EQ(pmath::Log2(8.0), 3.0);
    EXPECT_EQ(pmath::Log2(0.125), -3.0);
    EXPECT_EQ(pmath::Pow(2.0, 10.0), 1024.0);
    EXPECT_EQ(pmath::Pow(-2.0, 3.0), -8.0);
    EXPECT_EQ(pmath::Pow(7.0, 0.0), 1.0);
    EXPECT_EQ(pmath::Cos(0.0), 1.0);
    EXPECT_EQ(pmath::Sin(0.0), 0.0);
    EXPECT_EQ(pmath::NormalCdf(0.0), 0.5);
}

TEST(PortableMath, SpecialValues)
{
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(pmath::Exp(1000.0), inf);
    EXPECT_EQ(pmath::Exp(-1000.0), 0.0);
    EXPECT_EQ(pmath::Exp(-inf), 0.0);
    EXPECT_GT(pmath::Exp(-745.0), 0.0); // the smallest subnormal, not zero
    EXPECT_TRUE(std::isnan(pmath::Exp(std::nan(""))));
    EXPECT_EQ(pmath::Log(0.0), -inf);
    EXPECT_EQ(pmath::Log(inf), inf);
    EXPECT_TRUE(std::isnan(pmath::Log(-1.0)));
    EXPECT_NEAR(pmath::Log(std::numeric_limits<double>::denorm_min()), -744.44007192138126, 1e-12);
    EXPECT_TRUE(std::isnan(pmath::Pow(-2.0, 0.5)));
    EXPECT_EQ(pmath::Pow(0.0, 2.0), 0.0);
    EXPECT_EQ(pmath::Pow(0.0, -1.0), inf);
    EXPECT_TRUE(std::isnan(pmath::Cos(inf)));
    EXPECT_EQ(pmath::NormalCdf(-50.0), 0.0);
    EXPECT_EQ(pmath::NormalCdf(50.0), 1.0);
}

TEST(PortableMath, NormalCdfMatchesErfc)
{
    for (double x = -8.0; x <= 8.0; x += 0.0625)
    {
        EXPECT_NEAR(pmath::NormalCdf(x), 0.5 * std::erfc(-x / std::sqrt(2.0)), 2e-15) << x;
    }
}

/// The bits every host must produce, recorded once: any change here changes traces.
TEST(PortableMath, FixedBitsForFixedInputs)
{
    EXPECT_EQ(pmath::Exp(0x1.7b02105085289p-2), 0x1.72aa9a1b92f1ep+0);
    EXPECT_EQ(pmath::Log(0x1.001626b2f2303p+0), 0x1.625bdaa08a6f6p-12);
    EXPECT_EQ(pmath::Cos(2.5), -0x1.9a2f7ef858b7dp-1);
    EXPECT_EQ(pmath::Pow(10.0, -3.5), 0x1.4b96be9c2da2ap-12); // 2 ulps below the true value
}

} // namespace
} // namespace fedran
