#ifndef FEDRAN_MODELS_LEARNING_TRAFFIC_GENERATOR_H
#define FEDRAN_MODELS_LEARNING_TRAFFIC_GENERATOR_H

// Look-alike per-cell traffic for when the Milan files cannot be shipped (their licence, ODbL,
// binds derived databases): a generator whose every term follows a published statistic of the
// Milan internet activity. docs/scenarios/traffic-forecast.md lists the sources.

#include "compression/rng.h"
#include "models/learning/traffic-series.h"

#include <cstdint>

namespace fedran
{

/// The generator's parameters; the defaults and where each comes from are in the page.
struct TrafficGeneratorConfig
{
    uint32_t cells = 16; ///< on a square grid of ceil(sqrt(cells)) columns, ids 1..cells
    uint32_t days = 28;
    uint32_t stepsPerDay = kMilanStepsPerDay;
    /// ln of a cell's mean value per step ~ N(logScaleMu, logScaleSigma^2): sigma is the
    /// lognormal fit of Milan's per-cell totals; mu = 12.496 - ln(8928 steps) sets the units.
    double logScaleMu = 3.40;
    double logScaleSigma = 1.211;
    /// Spatial correlation of the log scales: a Gaussian kernel of this width in squares.
    double correlationCells = 3.0;
    double weekendMin = 0.4; ///< weekend/weekday level ratio ~ U[weekendMin, weekendMax]
    double weekendMax = 1.4;
    double noiseSd = 0.19; ///< stationary sd of the AR(1) log noise
    double noisePhi = 0.9; ///< its lag-one coefficient
    /// Burst centres per cell and week; each burst covers up to (2 burstRadius + 1)^2 cells.
    double burstsPerCellWeek = 0.05;
    double burstMin = 1.9; ///< a burst multiplies traffic by U[burstMin, burstMax]
    double burstMax = 6.6;
    uint32_t burstRadius = 1; ///< cells within this many squares (Chebyshev) share a burst
};

/// The five traffic archetypes (Wang et al., IMC 2015), whose daily shapes the generator uses.
constexpr uint32_t kTrafficArchetypes = 5;

/**
 * x_k(t) = s_k * P_a(k)(hour) * W_k(day) * exp(eta_k(t)) * E_k(t) for cell k and step t:
 * s_k lognormal with spatially correlated logs, P_a a daily shape of harmonics at 24, 12 and
 * 8 h for one of five archetypes drawn per cell, W_k the cell's weekend ratio on Saturdays and
 * Sundays (step 0 is Friday 1 November 2013, 00:00, as in the Milan data), eta an AR(1) in logs,
 * and E_k the bursts, Poisson in time, each shared by the cells around its centre for 1-3 h.
 *
 * Deterministic for a given Rng state. Throws std::invalid_argument for zero cells, days or
 * steps per day, or a negative or non-finite parameter (noisePhi must be in [0, 1)).
 */
TrafficSeries GenerateTraffic(const TrafficGeneratorConfig& config, Rng& rng);

} // namespace fedran

#endif
