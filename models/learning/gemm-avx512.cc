// Gemm kernels for x86-64-v4 (AVX-512). models/learning/CMakeLists.txt compiles this file
// alone with -march=x86-64-v4 -ffp-contract=off and defines FEDRAN_GEMM_X86_KERNELS; gemm.cc
// calls it only on CPUs that have those instructions. Eigen is renamed first: see
// gemm-kernel-impl.h. The portable kernel: gemm-portable-impl.h.

#ifdef FEDRAN_GEMM_X86_KERNELS
// GCC 12 warns about the deliberately undefined vectors inside its own avx512fintrin.h
// (GCC bug 105593), once per inlined use; nothing in this file is uninitialised.
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#    define Eigen                       fedran_eigen_avx512
#    define FEDRAN_GEMM_KERNEL_FUNCTION Avx512
#    include "models/learning/gemm-kernel-impl.h"

#    define FEDRAN_GEMM_PORTABLE_FUNCTION PortableAvx512
#    define FEDRAN_GEMM_LANES             16
#    define FEDRAN_GEMM_VECS              4
#    include "models/learning/gemm-portable-impl.h"
#endif
