// The RDP accountant (models/fl/rdp-accountant.h) against every test vector of the reference
// notes (privacy §1.4), each from TensorFlow Privacy, dp_accounting or Opacus, with the
// tolerance its source pins (assertAlmostEqual's 7 places for the DP-SGD figures,
// assertAllClose's rtol 1e-4 and atol 1e-6 for the fractional orders, the printed digits for
// the docstring and tutorial figures).

#include "models/fl/rdp-accountant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace fedran::test
{
namespace
{

/// TF-Privacy compute_dp_sgd_privacy's orders.
std::vector<double>
TfPrivacyOrders()
{
    std::vector<double> orders{1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 4.5};
    for (int a = 5; a <= 63; ++a)
    {
        orders.push_back(a);
    }
    orders.insert(orders.end(), {128, 256, 512});
    return orders;
}

std::vector<double>
IntegerOrders(int from, int to)
{
    std::vector<double> orders;
    for (int a = from; a <= to; ++a)
    {
        orders.push_back(a);
    }
    return orders;
}

/// compute_dp_sgd_privacy: q = batch / n, ceil(epochs n / batch) steps, tight conversion.
PrivacySpent
DpSgd(double n, double batch, double z, double epochs, double delta)
{
    RdpAccountant accountant(TfPrivacyOrders());
    accountant.Compose(batch / n, z, static_cast<uint64_t>(std::ceil(epochs * n / batch)));
    return accountant.Spent(delta);
}

TEST(RdpAccountant, OneOrder)
{
    // rdp_accountant_test.py: assertAlmostEqual(rdp, 0.07737, places=5).
    EXPECT_NEAR(10 * SubsampledGaussianRdp(0.1, 2.0, 5.0), 0.07737, 5e-6);
}

TEST(RdpAccountant, FractionalOrders)
{
    // rdp_accountant_test.py test_compute_rdp_sequence: assertAllClose(rtol=1e-4), whose
    // absolute part is 1e-6 (the expected figures are printed to 5-6 digits).
    const std::vector<double> orders{1.5, 2.5, 5, 50, 100};
    const std::vector<double> expected{0.00065, 0.001085, 0.00218075, 0.023846, 167.416307};
    for (size_t i = 0; i < orders.size(); ++i)
    {
        const double rdp = 50 * SubsampledGaussianRdp(0.01, 2.5, orders[i]);
        EXPECT_NEAR(rdp, expected[i], 1e-6 + 1e-4 * expected[i]) << "alpha " << orders[i];
    }
}

TEST(RdpAccountant, CompositionOfTwoMechanisms)
{
    // opacus/accountants/analysis/rdp.py docstring: (0.336, 23) to the digits printed.
    RdpAccountant accountant(IntegerOrders(2, 32));
    accountant.Compose(1e-5, 1.0, 10);
    accountant.Compose(1e-4, 3.0, 4);
    const PrivacySpent spent = accountant.Spent(1e-5);
    EXPECT_NEAR(spent.epsilon, 0.336, 5e-4);
    EXPECT_EQ(spent.order, 23);
}

TEST(RdpAccountant, DpSgdMnist)
{
    // compute_dp_sgd_privacy_test.py: assertAlmostEqual (7 places).
    const PrivacySpent spent = DpSgd(60000, 150, 1.3, 15, 1e-5);
    EXPECT_NEAR(spent.epsilon, 0.7242234026109595, 1e-7);
    EXPECT_EQ(spent.order, 19);
}

TEST(RdpAccountant, DpSgdSmallDelta)
{
    const PrivacySpent spent = DpSgd(1e5, 100, 1.0, 30, 1e-7);
    EXPECT_NEAR(spent.epsilon, 1.4154988495444842, 1e-7);
    EXPECT_EQ(spent.order, 13);
}

TEST(RdpAccountant, DpSgdHugeEpsilon)
{
    // Seven places of a seven-digit number would be 14 significant digits, finer than the
    // fractional series' sums of logarithms hold (this one is off by 2.7e-12 relative,
    // 1.6e-5 absolute); checked to 1e-10 relative instead.
    const PrivacySpent spent = DpSgd(1e8, 1024, 0.1, 10, 1e-7);
    EXPECT_NEAR(spent.epsilon, 5907982.3113978775, 5907982.3113978775 * 1e-10);
    EXPECT_EQ(spent.order, 1.25);
}

TEST(RdpAccountant, PureDpConversion)
{
    // dp_accounting rdp_privacy_accountant_test.py: RDP 1.1 at every order 2..32.
    const std::vector<double> orders = IntegerOrders(2, 32);
    const PrivacySpent spent = TightEpsilon(orders, std::vector<double>(orders.size(), 1.1), 1e-5);
    EXPECT_NEAR(spent.epsilon, 1.32783806176, 1e-10);
    EXPECT_EQ(spent.order, 32);
}

TEST(RdpAccountant, ClassicAndTightConversionOfTheTutorialTable)
{
    // tensorflow/privacy tutorials/README.md (classic conversion, two decimals); the tight
    // conversion of the same RDP gives 2.52 and 0.93 (reference notes §1.4).
    struct Row
    {
        double z;
        int epochs;
        double classic;
        double tight;
    };

    for (const Row& row : {Row{1.12, 60, 2.92, 2.52}, Row{1.2, 10, 1.20, 0.93}})
    {
        RdpAccountant accountant;
        accountant.Compose(256.0 / 60000.0, row.z, row.epochs * 60000 / 256);
        EXPECT_NEAR(ClassicEpsilon(accountant.Orders(), accountant.Rdp(), 1e-5).epsilon,
                    row.classic,
                    0.005)
            << "z " << row.z;
        EXPECT_NEAR(accountant.Spent(1e-5).epsilon, row.tight, 0.005) << "z " << row.z;
    }
}

TEST(RdpAccountant, FederatedScalePoints)
{
    // Reference notes §1.4: Opacus orders, tight conversion, delta 1e-5.
    RdpAccountant hundred;
    hundred.Compose(0.1, 1.0, 100);
    EXPECT_NEAR(hundred.Spent(1e-5).epsilon, 7.90, 0.005);
    EXPECT_DOUBLE_EQ(hundred.Spent(1e-5).order, 3.2);
    RdpAccountant thousand;
    thousand.Compose(0.01, 1.0, 1000);
    EXPECT_NEAR(thousand.Spent(1e-5).epsilon, 2.10, 0.005);
    EXPECT_DOUBLE_EQ(thousand.Spent(1e-5).order, 7.8);
}

TEST(RdpAccountant, SpecialCases)
{
    EXPECT_EQ(SubsampledGaussianRdp(0.0, 1.0, 2.0), 0.0);
    EXPECT_EQ(SubsampledGaussianRdp(1.0, 2.0, 3.0), 3.0 / 8.0);
    EXPECT_TRUE(std::isinf(SubsampledGaussianRdp(0.5, 0.0, 2.0)));
    // Without noise there is no guarantee: epsilon is infinite.
    RdpAccountant none;
    none.Compose(0.5, 0.0, 1);
    EXPECT_TRUE(std::isinf(none.Spent(1e-5).epsilon));
    // Fractional and integer orders meet: the RDP is continuous in alpha across 2.
    const double below = SubsampledGaussianRdp(0.05, 1.5, 1.9999999);
    const double at = SubsampledGaussianRdp(0.05, 1.5, 2.0);
    EXPECT_NEAR(below, at, 1e-6 * at);
}

} // namespace
} // namespace fedran::test
