// Gemm kernels for x86-64-v3 (AVX2 + FMA). models/learning/CMakeLists.txt compiles this file
// alone with -march=x86-64-v3 -ffp-contract=off and defines FEDRAN_GEMM_X86_KERNELS; gemm.cc
// calls it only on CPUs that have those instructions. Eigen is renamed first: see
// gemm-kernel-impl.h. The portable kernel: gemm-portable-impl.h.

#ifdef FEDRAN_GEMM_X86_KERNELS
#    define Eigen                       fedran_eigen_avx2
#    define FEDRAN_GEMM_KERNEL_FUNCTION Avx2
#    include "models/learning/gemm-kernel-impl.h"

#    define FEDRAN_GEMM_PORTABLE_FUNCTION PortableAvx2
#    define FEDRAN_GEMM_LANES             8
#    define FEDRAN_GEMM_VECS              3
#    include "models/learning/gemm-portable-impl.h"
#endif
