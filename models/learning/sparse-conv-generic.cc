// The sparse convolution kernel at the x86-64 baseline (SSE2; whatever the build's flags give
// elsewhere): sparse-conv-impl.h, four floats a vector, multiply-adds rounded once by the
// double-precision emulation. Compiled with -ffp-contract=off (models/learning/CMakeLists.txt).

#define FEDRAN_SPARSE_CONV_FUNCTION SparseConvGeneric
#define FEDRAN_GEMM_LANES           4
#include "models/learning/sparse-conv-impl.h"
