#include "simulator/core/libm-pinning.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <unistd.h>

namespace fedran
{

namespace
{

/// Set in the re-executed process, so that it does not re-execute again.
constexpr const char* kPinnedMarker = "FEDRAN_LIBM_PINNED";
constexpr const char* kHwcaps = "glibc.cpu.hwcaps=";
constexpr const char* kMaskFma = "-FMA,-FMA4";

/// GLIBC_TUNABLES with the FMA builds masked, keeping whatever the user had set.
std::string
TunablesWithFmaMasked(const char* current)
{
    std::string tunables = current ? current : "";
    const size_t at = tunables.find(kHwcaps);
    if (at == std::string::npos)
    {
        return (tunables.empty() ? "" : tunables + ":") + kHwcaps + kMaskFma;
    }
    // Extend the user's own hwcaps list (its value ends at the next ':').
    const size_t end = tunables.find(':', at);
    tunables.insert(end == std::string::npos ? tunables.size() : end, std::string(",") + kMaskFma);
    return tunables;
}

} // namespace

void
PinPortableLibm(char** argv)
{
    if (std::getenv(kPinnedMarker) != nullptr)
    {
        if (LibmStatus() != "sse2")
        {
            std::cerr << "fedran: warning: this C library's exp() does not give the reference "
                         "bits even with its FMA builds masked; ns-3's TCP and LTE models may "
                         "differ in the last digits from other hosts (run.json: libm "
                         "\"host-dependent\")\n";
        }
        return;
    }
#if defined(__x86_64__) && defined(__GLIBC__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("fma"))
    {
        return;
    }
    const std::string tunables = TunablesWithFmaMasked(std::getenv("GLIBC_TUNABLES"));
    setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
    setenv(kPinnedMarker, "1", 1);
    execv("/proc/self/exe", argv);
    std::cerr << "fedran: warning: could not re-execute to pin glibc's math functions ("
              << std::strerror(errno) << "); traces may differ in the last digits from other "
              << "CPUs (run.json: libm \"host-dependent\")\n";
#else
    (void)argv;
#endif
}

std::string
LibmStatus()
{
    // exp() of this argument is 0x1.72aa9a1b92f1ep+0 in glibc's SSE2 build and ...f1fp+0 in
    // its FMA build; volatile keeps the compiler from folding the call at compile time.
    volatile double probe = 0x1.7b02105085289p-2;
    return std::exp(probe) == 0x1.72aa9a1b92f1ep+0 ? "sse2" : "host-dependent";
}

} // namespace fedran
