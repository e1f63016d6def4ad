#ifndef FEDRAN_SIMULATOR_CORE_LIBM_PINNING_H
#define FEDRAN_SIMULATOR_CORE_LIBM_PINNING_H

// One build of glibc's elementary functions on every CPU, for the code fedran does not
// compile itself.
//
// glibc chooses among builds of exp, log, pow, sin, cos, atan... when a program is loaded,
// by the CPU's features; its builds for FMA CPUs round about one result in 700 differently
// from its SSE2 builds. fedran's own code calls none of them (compression/portable-math.h),
// but ns-3's libraries do on paths that reach the traces: TCP CUBIC's window (pow), the LTE
// module's SINR and error models (log10, pow, exp), ExponentialRandomVariable (log). The
// choice can only be made before the dynamic loader runs, through GLIBC_TUNABLES, so fedran
// re-executes itself once with glibc.cpu.hwcaps=-FMA,-FMA4 added: the SSE2 builds, which
// every x86-64 runs and which give the same bits everywhere.

#include <string>

namespace fedran
{

/// Re-executes this program with glibc's FMA builds masked, unless that was done already
/// or the CPU has no FMA (then glibc picks the SSE2 builds anyway). Returns only if no
/// re-execution happened (or it failed: the run then goes on, and LibmStatus() says so).
/// Call first thing in main(), before any thread starts.
void PinPortableLibm(char** argv);

/// "sse2" when exp() gives the SSE2 build's bits for a probe that the FMA builds round
/// differently; otherwise "host-dependent" (recorded in run.json as `libm`).
std::string LibmStatus();

} // namespace fedran

#endif
