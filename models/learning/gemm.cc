#include "models/learning/gemm.h"

#include "models/learning/gemm-kernels.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace fedran
{

namespace
{

gemm::Kernel
KernelOf(GemmIsa isa, GemmKind kind)
{
    const bool fast = kind == GemmKind::kFast;
    switch (isa)
    {
        case GemmIsa::kGeneric:
            return fast ? &gemm::Generic : &gemm::PortableGeneric;
#ifdef FEDRAN_GEMM_X86_KERNELS
        case GemmIsa::kAvx2:
            return fast ? &gemm::Avx2 : &gemm::PortableAvx2;
        case GemmIsa::kAvx512:
            return fast ? &gemm::Avx512 : &gemm::PortableAvx512;
#endif
        default:
            return nullptr;
    }
}

std::atomic<GemmKind> g_kind{GemmKind::kPortable};
std::atomic<gemm::Kernel> g_kernel{nullptr}; ///< of g_kind on ActiveGemmIsa(), set at first use

/// The level FEDRAN_GEMM_ISA allows (the highest if unset).
GemmIsa
Cap()
{
    const char* value = std::getenv("FEDRAN_GEMM_ISA");
    if (value == nullptr || *value == '\0')
    {
        return GemmIsa::kAvx512;
    }
    for (GemmIsa isa : {GemmIsa::kGeneric, GemmIsa::kAvx2, GemmIsa::kAvx512})
    {
        if (std::string(value) == GemmIsaName(isa))
        {
            return isa;
        }
    }
    throw std::invalid_argument(std::string("FEDRAN_GEMM_ISA: unknown instruction set '") + value +
                                "' (known: generic, avx2, avx512)");
}

void
Run(gemm::Kernel kernel,
    Op opA,
    Op opB,
    size_t m,
    size_t n,
    size_t k,
    const float* a,
    size_t lda,
    const float* b,
    size_t ldb,
    float* c,
    size_t ldc,
    bool accumulate)
{
    if (m == 0 || n == 0)
    {
        return;
    }
    if (k == 0)
    {
        if (!accumulate)
        {
            for (size_t i = 0; i < m; ++i)
            {
                std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
            }
        }
        return;
    }
    kernel(opA == Op::kTranspose,
           opB == Op::kTranspose,
           m,
           n,
           k,
           a,
           lda,
           b,
           ldb,
           c,
           ldc,
           !accumulate);
}

} // namespace

const char*
GemmIsaName(GemmIsa isa)
{
    switch (isa)
    {
        case GemmIsa::kGeneric:
            return "generic";
        case GemmIsa::kAvx2:
            return "avx2";
        case GemmIsa::kAvx512:
            return "avx512";
    }
    return "?";
}

const char*
GemmKindName(GemmKind kind)
{
    return kind == GemmKind::kFast ? "fast" : "portable";
}

void
SetGemmKind(GemmKind kind)
{
    g_kind = kind;
    g_kernel = KernelOf(ActiveGemmIsa(), kind);
}

GemmKind
ActiveGemmKind()
{
    return g_kind.load();
}

std::string
ActiveGemmKernelName()
{
    return std::string(GemmKindName(ActiveGemmKind())) + "-" + GemmIsaName(ActiveGemmIsa());
}

bool
GemmIsaAvailable(GemmIsa isa)
{
    if (KernelOf(isa, GemmKind::kFast) == nullptr)
    {
        return false;
    }
#ifdef FEDRAN_GEMM_X86_KERNELS
    // The CPU model also checks that the OS saves the AVX / AVX-512 register state. Features
    // are named one by one ("x86-64-v3" as a whole is unknown to older compilers); CPUs with
    // these have the rest of their level too (F16C, MOVBE, LZCNT come with AVX2 + BMI2).
    __builtin_cpu_init();
    const bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
    switch (isa)
    {
        case GemmIsa::kAvx2:
            return v3;
        case GemmIsa::kAvx512:
            return v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                   __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                   __builtin_cpu_supports("avx512cd");
        default:
            break;
    }
#endif
    return true;
}

GemmIsa
ActiveGemmIsa()
{
    static const GemmIsa active = [] {
        const GemmIsa cap = Cap();
        for (GemmIsa isa : {GemmIsa::kAvx512, GemmIsa::kAvx2})
        {
            if (isa <= cap && GemmIsaAvailable(isa))
            {
                return isa;
            }
        }
        return GemmIsa::kGeneric;
    }();
    return active;
}

void
Gemm(Op opA,
     Op opB,
     size_t m,
     size_t n,
     size_t k,
     const float* a,
     size_t lda,
     const float* b,
     size_t ldb,
     float* c,
     size_t ldc,
     bool accumulate)
{
    gemm::Kernel kernel = g_kernel.load(std::memory_order_relaxed);
    if (kernel == nullptr)
    {
        kernel = KernelOf(ActiveGemmIsa(), g_kind.load());
        g_kernel = kernel;
    }
    Run(kernel, opA, opB, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

void
GemmOn(GemmIsa isa,
       GemmKind kind,
       Op opA,
       Op opB,
       size_t m,
       size_t n,
       size_t k,
       const float* a,
       size_t lda,
       const float* b,
       size_t ldb,
       float* c,
       size_t ldc,
       bool accumulate)
{
    if (!GemmIsaAvailable(isa))
    {
        throw std::invalid_argument(std::string("GemmOn: no ") + GemmIsaName(isa) +
                                    " kernel in this build or on this CPU");
    }
    Run(KernelOf(isa, kind), opA, opB, m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

} // namespace fedran
