// The convolution kernels at the x86-64 baseline (SSE2; whatever the build's flags give
// elsewhere): direct-conv-impl.h and sparse-conv-impl.h, four floats a vector, multiply-adds
// rounded once by the double-precision emulation. Compiled with -ffp-contract=off
// (models/learning/CMakeLists.txt).

#define FEDRAN_GEMM_LANES                  4
#define FEDRAN_DIRECT_CONV_FUNCTION        DirectConvGeneric
#define FEDRAN_DIRECT_WEIGHT_GRAD_FUNCTION DirectWeightGradGeneric
#define FEDRAN_SPARSE_CONV_FUNCTION        SparseConvGeneric
#include "models/learning/direct-conv-impl.h"
#include "models/learning/sparse-conv-impl.h"
