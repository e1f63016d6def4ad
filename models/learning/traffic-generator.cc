#include "models/learning/traffic-generator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace fedran
{

namespace
{

/// One harmonic of a daily shape: amplitude and the hour of its peak.
struct Harmonic
{
    double amplitude;
    double peakHour;
};

/// Daily shapes 1 + sum_m A_m cos(2 pi m (h - phi_m) / 24), m = 1..3 (three frequency
/// components, Wang et al. 2017). Amplitudes chosen so that peak/trough lies in 11-100 and the
/// 02-05 h level is 0.15-0.33 of the mean, the range of Milan's busiest squares; the peak
/// hours (office 13 h, residential 20 h, nightlife 21-22 h, commuting 8 h and 18 h) are
/// assumptions, the published typology names the patterns but not their phases.
constexpr std::array<std::array<Harmonic, 3>, kTrafficArchetypes> kShapes{{
    {{{0.85, 19.0}, {0.30, 21.0}, {0.08, 21.0}}}, // residential
    {{{0.95, 14.0}, {0.45, 13.0}, {0.12, 13.0}}}, // office
    {{{0.55, 15.0}, {0.35, 8.5}, {0.05, 8.0}}},   // transport
    {{{0.85, 19.0}, {0.30, 22.0}, {0.08, 23.0}}}, // entertainment
    {{{0.90, 16.0}, {0.35, 14.0}, {0.10, 14.0}}}, // mixed
}};

/// A shape never drops below this share of its mean level, so no step is exactly zero.
constexpr double kShapeFloor = 0.02;

/// 1 November 2013, step 0 of the Milan data, was a Friday: day d is a Saturday or Sunday
/// when (d + 4) % 7 is 5 or 6 (Monday = 0).
constexpr uint32_t kFirstWeekday = 4;

double
DailyShape(uint32_t archetype, double hour)
{
    double value = 1.0;
    for (size_t m = 0; m < 3; ++m)
    {
        const Harmonic& h = kShapes[archetype][m];
        value += h.amplitude *
                 std::cos(2.0 * std::numbers::pi * double(m + 1) * (hour - h.peakHour) / 24.0);
    }
    return std::max(kShapeFloor, value);
}

void
Check(const TrafficGeneratorConfig& c)
{
    if (c.cells == 0 || c.days == 0 || c.stepsPerDay == 0)
    {
        throw std::invalid_argument("cells, days and steps per day must be positive");
    }
    const double values[] = {c.logScaleSigma,
                             c.correlationCells,
                             c.weekendMin,
                             c.noiseSd,
                             c.burstsPerCellWeek,
                             c.burstMin};
    for (double value : values)
    {
        if (!std::isfinite(value) || value < 0.0)
        {
            throw std::invalid_argument("generator parameters must be finite and non-negative");
        }
    }
    if (!std::isfinite(c.logScaleMu) || !(c.weekendMax >= c.weekendMin) ||
        !(c.burstMax >= c.burstMin) || !std::isfinite(c.weekendMax) || !std::isfinite(c.burstMax) ||
        !(c.noisePhi >= 0.0 && c.noisePhi < 1.0))
    {
        throw std::invalid_argument("generator ranges must be ordered and noise phi in [0, 1)");
    }
}

/// Unit-variance Gaussian field on the grid: white noise smoothed by a Gaussian kernel of
/// width `width` squares (cut at 3 widths), so cells d squares apart have correlation about
/// exp(-d^2 / (4 width^2)).
std::vector<double>
CorrelatedField(uint32_t cells, uint32_t columns, double width, Rng& rng)
{
    std::vector<double> white(cells);
    for (double& value : white)
    {
        value = rng.Normal();
    }
    if (width <= 0.0)
    {
        return white;
    }
    const int reach = static_cast<int>(std::ceil(3.0 * width));
    std::vector<double> field(cells);
    for (uint32_t k = 0; k < cells; ++k)
    {
        const int x = static_cast<int>(k % columns);
        const int y = static_cast<int>(k / columns);
        double sum = 0.0;
        double weights = 0.0;
        for (int dy = -reach; dy <= reach; ++dy)
        {
            for (int dx = -reach; dx <= reach; ++dx)
            {
                const int nx = x + dx;
                const int ny = y + dy;
                const int64_t j = int64_t(ny) * columns + nx;
                if (nx < 0 || ny < 0 || nx >= int(columns) || j >= int64_t(cells))
                {
                    continue;
                }
                const double w = std::exp(-double(dx * dx + dy * dy) / (2.0 * width * width));
                sum += w * white[j];
                weights += w * w;
            }
        }
        field[k] = sum / std::sqrt(weights);
    }
    return field;
}

/// Multiplies the bursts into `burst` (cells x steps, initially 1).
void
AddBursts(const TrafficGeneratorConfig& c,
          uint32_t columns,
          std::vector<std::vector<double>>& burst,
          Rng& rng)
{
    const uint32_t steps = c.days * c.stepsPerDay;
    const double expected = c.burstsPerCellWeek * c.cells * c.days / 7.0;
    // Poisson count by summing exponential gaps over [0, expected).
    double clock = -std::log(1.0 - rng.Uniform());
    const uint32_t stepsPerHour = std::max<uint32_t>(1, c.stepsPerDay / 24);
    while (clock < expected)
    {
        const auto centre = static_cast<uint32_t>(rng.UniformInt(c.cells));
        const auto start = static_cast<uint32_t>(rng.UniformInt(steps));
        const auto length = static_cast<uint32_t>((1 + rng.UniformInt(3)) * stepsPerHour);
        const double height = c.burstMin + (c.burstMax - c.burstMin) * rng.Uniform();
        const int cx = int(centre % columns);
        const int cy = int(centre / columns);
        for (uint32_t k = 0; k < c.cells; ++k)
        {
            const int dx = std::abs(int(k % columns) - cx);
            const int dy = std::abs(int(k / columns) - cy);
            if (std::max(dx, dy) > int(c.burstRadius))
            {
                continue;
            }
            for (uint32_t t = start; t < std::min(steps, start + length); ++t)
            {
                burst[k][t] *= height;
            }
        }
        clock += -std::log(1.0 - rng.Uniform());
    }
}

} // namespace

TrafficSeries
GenerateTraffic(const TrafficGeneratorConfig& c, Rng& rng)
{
    Check(c);
    const auto columns = static_cast<uint32_t>(std::ceil(std::sqrt(double(c.cells))));
    const uint32_t steps = c.days * c.stepsPerDay;
    const std::vector<double> field = CorrelatedField(c.cells, columns, c.correlationCells, rng);
    std::vector<uint32_t> archetype(c.cells);
    std::vector<double> weekend(c.cells);
    for (uint32_t k = 0; k < c.cells; ++k)
    {
        archetype[k] = static_cast<uint32_t>(rng.UniformInt(kTrafficArchetypes));
        weekend[k] = c.weekendMin + (c.weekendMax - c.weekendMin) * rng.Uniform();
    }
    std::vector<std::vector<double>> burst(c.cells, std::vector<double>(steps, 1.0));
    AddBursts(c, columns, burst, rng);

    TrafficSeries out;
    out.stepsPerDay = c.stepsPerDay;
    out.firstStampMs = kMilanFirstStampMs;
    const double innovationSd = c.noiseSd * std::sqrt(1.0 - c.noisePhi * c.noisePhi);
    for (uint32_t k = 0; k < c.cells; ++k)
    {
        const double scale = std::exp(c.logScaleMu + c.logScaleSigma * field[k]);
        std::vector<double> series(steps);
        double eta = c.noiseSd * rng.Normal(); // start in the stationary distribution
        for (uint32_t t = 0; t < steps; ++t)
        {
            const uint32_t day = t / c.stepsPerDay;
            const double hour = 24.0 * double(t % c.stepsPerDay) / double(c.stepsPerDay);
            const uint32_t weekday = (day + kFirstWeekday) % 7;
            const double week = weekday >= 5 ? weekend[k] : 1.0;
            series[t] = scale * DailyShape(archetype[k], hour) * week * std::exp(eta) * burst[k][t];
            eta = c.noisePhi * eta + innovationSd * rng.Normal();
        }
        out.cells.push_back(k + 1);
        out.values.push_back(std::move(series));
    }
    return out;
}

} // namespace fedran
