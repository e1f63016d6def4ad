#ifndef FEDRAN_MODELS_LEARNING_ISA_KERNELS_H
#define FEDRAN_MODELS_LEARNING_ISA_KERNELS_H

// Picking one build of a kernel compiled once per instruction set (generic, AVX2, AVX-512) by
// GemmIsa: the convolution kernels (conv-kernels.h) and the SGD step (sgd-step.h) dispatch
// through these, as gemm.cc does for the matrix products.

#include "models/learning/gemm.h"

#include <stdexcept>
#include <string>

namespace fedran::gemm
{

/// A kernel family's builds, as KernelFor takes them (family##Generic,
/// family##Avx2, family##Avx512): generic, AVX2, AVX-512 (null where this
/// build has none: the x86 levels elsewhere than on x86-64).
#ifdef FEDRAN_GEMM_X86_KERNELS
#    define FEDRAN_ISA_KERNEL_BUILDS(family) &family##Generic, &family##Avx2, &family##Avx512
#else
#    define FEDRAN_ISA_KERNEL_BUILDS(family)                                \
        &family##Generic, static_cast<decltype(&family##Generic)>(nullptr), \
            static_cast<decltype(&family##Generic)>(nullptr)
#endif

/// The kernel of `isa` among a family's builds (FEDRAN_ISA_KERNEL_BUILDS), or null.
template<typename Kernel>
Kernel
KernelFor(GemmIsa isa, Kernel generic, Kernel avx2, Kernel avx512)
{
    switch (isa)
    {
        case GemmIsa::kGeneric:
            return generic;
        case GemmIsa::kAvx2:
            return avx2;
        case GemmIsa::kAvx512:
            return avx512;
    }
    return nullptr;
}

/// KernelFor, refusing an instruction set this CPU or build does not have: `what` names the
/// caller in the message.
template<typename Kernel>
Kernel
AvailableKernel(GemmIsa isa, const char* what, Kernel generic, Kernel avx2, Kernel avx512)
{
    const Kernel kernel = KernelFor(isa, generic, avx2, avx512);
    if (!GemmIsaAvailable(isa) || kernel == nullptr)
    {
        throw std::invalid_argument(std::string(what) + ": no " + GemmIsaName(isa) +
                                    " kernel on this CPU or build");
    }
    return kernel;
}

} // namespace fedran::gemm

#endif
