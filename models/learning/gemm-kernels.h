#ifndef FEDRAN_MODELS_LEARNING_GEMM_KERNELS_H
#define FEDRAN_MODELS_LEARNING_GEMM_KERNELS_H

// The per-instruction-set kernels behind Gemm() (gemm.h), for gemm.cc's dispatch. Each
// computes c += op(a) * op(b) with m, n, k > 0, in the conventions of Gemm(); with `overwrite`,
// c = op(a) * op(b) as if c had been zero (the portable kernels start their sums from a zero
// register instead of clearing c in memory first).

#include <cstddef>

namespace fedran::gemm
{

/// The signature every kernel has.
using KernelFunction = void(bool transposeA,
                            bool transposeB,
                            size_t m,
                            size_t n,
                            size_t k,
                            const float* a,
                            size_t lda,
                            const float* b,
                            size_t ldb,
                            float* c,
                            size_t ldc,
                            bool overwrite);
using Kernel = KernelFunction*;

// Fast kernels (gemm-kernel-impl.h: Eigen's, with FMA where the instruction set has it) and
// portable ones (gemm-portable-impl.h: the same bits from each of them).

/// SSE2 (the x86-64 baseline), or whatever the build's flags give on other architectures.
KernelFunction Generic;
KernelFunction PortableGeneric;

#ifdef FEDRAN_GEMM_X86_KERNELS
/// x86-64-v3: AVX2 and FMA.
KernelFunction Avx2;
KernelFunction PortableAvx2;

/// x86-64-v4: AVX-512 F/BW/CD/DQ/VL.
KernelFunction Avx512;
KernelFunction PortableAvx512;
#endif

} // namespace fedran::gemm

#endif
