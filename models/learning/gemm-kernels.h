#ifndef FEDRAN_MODELS_LEARNING_GEMM_KERNELS_H
#define FEDRAN_MODELS_LEARNING_GEMM_KERNELS_H

// The per-instruction-set kernels behind Gemm() (gemm.h), for gemm.cc's dispatch. Each
// computes c += op(a) * op(b) with m, n, k > 0, in the conventions of Gemm().

#include <cstddef>

namespace fedran::gemm
{

using Kernel = void (*)(bool transposeA,
                        bool transposeB,
                        size_t m,
                        size_t n,
                        size_t k,
                        const float* a,
                        size_t lda,
                        const float* b,
                        size_t ldb,
                        float* c,
                        size_t ldc);

/// SSE2 (the x86-64 baseline), or whatever the build's flags give on other architectures.
void Generic(bool,
             bool,
             size_t,
             size_t,
             size_t,
             const float*,
             size_t,
             const float*,
             size_t,
             float*,
             size_t);

#ifdef FEDRAN_GEMM_X86_KERNELS
/// x86-64-v3: AVX2 and FMA.
void Avx2(bool,
          bool,
          size_t,
          size_t,
          size_t,
          const float*,
          size_t,
          const float*,
          size_t,
          float*,
          size_t);

/// x86-64-v4: AVX-512 F/BW/CD/DQ/VL.
void Avx512(bool,
            bool,
            size_t,
            size_t,
            size_t,
            const float*,
            size_t,
            const float*,
            size_t,
            float*,
            size_t);
#endif

/// The portable kernels (gemm-portable-impl.h): the same bits from each of them.
void PortableGeneric(bool,
                     bool,
                     size_t,
                     size_t,
                     size_t,
                     const float*,
                     size_t,
                     const float*,
                     size_t,
                     float*,
                     size_t);

#ifdef FEDRAN_GEMM_X86_KERNELS
void PortableAvx2(bool,
                  bool,
                  size_t,
                  size_t,
                  size_t,
                  const float*,
                  size_t,
                  const float*,
                  size_t,
                  float*,
                  size_t);

void PortableAvx512(bool,
                    bool,
                    size_t,
                    size_t,
                    size_t,
                    const float*,
                    size_t,
                    const float*,
                    size_t,
                    float*,
                    size_t);
#endif

} // namespace fedran::gemm

#endif
