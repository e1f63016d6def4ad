#ifndef FEDRAN_SIMULATOR_CORE_CALIBRATE_COMMAND_H
#define FEDRAN_SIMULATOR_CORE_CALIBRATE_COMMAND_H

#include <nlohmann/json.hpp>

#include <string>

namespace fedran
{

/// Options of `fedran calibrate`.
struct CalibrateOptions
{
    std::string out;    ///< where to write the profile (written only once it is complete)
    double scale = 1.0; ///< multiplies the problem sizes (smaller: a quicker, rougher fit)
};

/**
 * Measures this machine's cost profile (compression/cost-model.h): times every registered
 * codec's calibration specs (CodecCostModel) on Gaussian tensors of a few sizes, one thread,
 * the best of several repetitions, and fits each codec's declared terms by least squares
 * (terms that would come out negative are dropped); times the server's fold and apply per
 * element and a forward pass per FLOP. The profile names the machine (/proc/cpuinfo).
 * Wall time is used here only: a simulation reads the coefficients, never a clock.
 */
nlohmann::json MeasureCostProfile(const CalibrateOptions& options);

/// Runs MeasureCostProfile and writes the profile to options.out; prints a summary.
int RunCalibrateCommand(const CalibrateOptions& options);

} // namespace fedran

#endif
