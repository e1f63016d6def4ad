// The sparse convolution kernel for x86-64-v3 (AVX2 and FMA), eight floats a vector.
// models/learning/CMakeLists.txt compiles this file alone with -march=x86-64-v3
// -ffp-contract=off; sparse-conv.cc calls it only on CPUs that have those instructions.

#ifdef FEDRAN_GEMM_X86_KERNELS
#    define FEDRAN_SPARSE_CONV_FUNCTION SparseConvAvx2
#    define FEDRAN_GEMM_LANES           8
#    include "models/learning/sparse-conv-impl.h"
#endif
