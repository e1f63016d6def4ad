// Gemm kernels for the build's own instruction set (SSE2 on plain x86-64): the fast one, which
// shares Eigen's symbols with the rest of the library (built with the same flags), and the
// portable one (gemm-portable-impl.h; this file is compiled with -ffp-contract=off).

#define FEDRAN_GEMM_KERNEL_FUNCTION Generic
#include "models/learning/gemm-kernel-impl.h"

#define FEDRAN_GEMM_PORTABLE_FUNCTION PortableGeneric
#define FEDRAN_GEMM_LANES             4
#define FEDRAN_GEMM_VECS              2
#include "models/learning/gemm-portable-impl.h"
