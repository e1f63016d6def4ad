// Local DP at a site (models/fl/local-dp.h) and its accountant (DpLedger in local mode): the
// clipped update is bounded by C, the noise has std z x C, each site draws from its own
// stream, and epsilon is the Gaussian mechanism's without amplification, per selection.

#include "fl-test-util.h"
#include "models/fl/dp-aggregation.h"
#include "models/fl/federated-task.h"
#include "models/fl/local-dp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace fedran::test
{
namespace
{

TEST(LocalDp, ClippingBoundsEachSitesUpdate)
{
    Rng rng(1, LocalDpStream(0));
    const std::vector<std::vector<float>> updates{
        {3.0f, 4.0f, 0.0f},   // norm 5: scaled by 0.1
        {0.1f, 0.0f, 0.2f},   // norm 0.22: kept as it is
        {0.0f, -30.0f, 0.0f}, // norm 30
    };
    for (std::vector<float> u : updates)
    {
        const double before = Norm(u);
        const std::vector<float> original = u;
        const double factor = ClipAndNoise(u, 0.5, 0.0, rng); // no noise: clipping alone
        EXPECT_LE(Norm(u), 0.5 * (1 + 1e-6)) << before;
        EXPECT_DOUBLE_EQ(factor, std::min(1.0, 0.5 / before));
        for (size_t i = 0; i < u.size(); ++i)
        {
            EXPECT_FLOAT_EQ(u[i], float(factor * original[i]));
        }
    }
    std::vector<float> small{0.1f, 0.0f, 0.2f};
    ClipAndNoise(small, 0.5, 0.0, rng);
    EXPECT_EQ(small, (std::vector<float>{0.1f, 0.0f, 0.2f})); // within C: untouched
}

TEST(LocalDp, NoiseStdIsMultiplierTimesClip)
{
    // An update of norm 40 clipped to C = 0.5 plus N(0, (z C)^2) per coordinate: the
    // difference from the clipped update is the noise. 200 000 draws: the sample std is within
    // 0.3% of z C at ~1.9 standard errors (se = sigma / sqrt(2n) = 0.16%); the seed is fixed,
    // so the check is deterministic and fails if the std were off by a factor.
    const size_t n = 200000;
    const double clip = 0.5;
    const double z = 1.3;
    std::vector<float> update(n, 0.0f);
    update[0] = 40.0f;
    std::vector<float> clipped(n, 0.0f);
    clipped[0] = float(0.5);
    Rng rng(7, LocalDpStream(3));
    ClipAndNoise(update, clip, z * clip, rng);
    double sum = 0.0;
    double squares = 0.0;
    for (size_t i = 0; i < n; ++i)
    {
        const double noise = double(update[i]) - double(clipped[i]);
        sum += noise;
        squares += noise * noise;
    }
    const double mean = sum / n;
    const double sd = std::sqrt(squares / n - mean * mean);
    const double sigma = z * clip;
    EXPECT_NEAR(sd, sigma, 0.003 * sigma);
    EXPECT_NEAR(mean, 0.0, 4.0 * sigma / std::sqrt(double(n)));
}

TEST(LocalDp, EachSiteHasItsOwnReproducibleStream)
{
    EXPECT_EQ(LocalDpStream(0), 11ull << 32);
    EXPECT_EQ(LocalDpStream(5), (11ull << 32) + 5);
    auto noised = [](uint32_t client) {
        std::vector<float> u(64, 0.0f);
        Rng rng(3, LocalDpStream(client));
        ClipAndNoise(u, 1.0, 1.0, rng);
        return u;
    };
    EXPECT_EQ(noised(4), noised(4));
    EXPECT_NE(noised(4), noised(5));
}

TEST(LocalDp, EpsilonIsTheGaussianMechanismPerSelectionWithoutAmplification)
{
    DpConfig config;
    config.mode = "local";
    config.noiseMultiplier = 1.0;
    config.delta = 1e-5;
    // clients_per_round / clients = 0.5 would amplify in central mode; not here.
    const DpLedger ledger(config, 10, 20);
    EXPECT_EQ(ledger.SamplingRate(), 1.0);
    EXPECT_EQ(ledger.Accountant(), "rdp_gaussian_per_site_no_amplification_tight");
    // By hand (a stand-alone Python loop over Opacus' orders, tight conversion):
    // min over alpha of steps alpha / (2 z^2) + ln(1 - 1/alpha) - (ln delta + ln alpha)/(alpha -
    // 1).
    EXPECT_NEAR(ledger.After(1).epsilon, 4.728507067217623, 1e-12);
    EXPECT_DOUBLE_EQ(ledger.After(1).order, 5.4);
    EXPECT_NEAR(ledger.After(15).epsilon, 24.83092095026798, 1e-11);
    EXPECT_DOUBLE_EQ(ledger.After(15).order, 2.2);
    config.noiseMultiplier = 5.0;
    EXPECT_NEAR(DpLedger(config, 10, 20).After(30).epsilon, 5.252401293794604, 1e-12);
    // The same formula in libm, order by order, for several step counts.
    for (uint32_t steps : {2u, 7u, 40u})
    {
        double best = INFINITY;
        for (double alpha : DefaultRdpOrders())
        {
            const double rdp = steps * alpha / (2.0 * 25.0);
            best = std::min(best,
                            rdp + std::log((alpha - 1) / alpha) -
                                (std::log(1e-5) + std::log(alpha)) / (alpha - 1));
        }
        EXPECT_NEAR(DpLedger(config, 10, 20).After(steps).epsilon, best, 1e-12 * best) << steps;
    }
}

TEST(LocalDp, TheWorstSiteCounts)
{
    SiteSelections selections;
    EXPECT_EQ(selections.Max(), 0u);
    for (uint32_t client : {3u, 1u, 3u, 7u, 3u, 1u})
    {
        selections.Selected(client);
    }
    EXPECT_EQ(selections.Max(), 3u);
}

} // namespace
} // namespace fedran::test
