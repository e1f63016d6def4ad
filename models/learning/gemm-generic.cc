// Gemm kernel for the build's own instruction set (SSE2 on plain x86-64). Shares Eigen's
// symbols with the rest of the library, which is built with the same flags.

#define FEDRAN_GEMM_KERNEL_FUNCTION Generic
#include "models/learning/gemm-kernel-impl.h"
