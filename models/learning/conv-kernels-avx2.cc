// The convolution kernels for x86-64-v3 (AVX2 and FMA), eight floats a vector: direct-conv-impl.h
// and sparse-conv-impl.h. models/learning/CMakeLists.txt compiles this file alone with
// -march=x86-64-v3 -ffp-contract=off; direct-conv.cc and sparse-conv.cc call it only on CPUs
// that have those instructions.

#ifdef FEDRAN_GEMM_X86_KERNELS
#    define FEDRAN_GEMM_LANES                  8
#    define FEDRAN_DIRECT_CONV_FUNCTION        DirectConvAvx2
#    define FEDRAN_DIRECT_WEIGHT_GRAD_FUNCTION DirectWeightGradAvx2
#    define FEDRAN_SPARSE_CONV_FUNCTION        SparseConvAvx2
#    include "models/learning/direct-conv-impl.h"
#    include "models/learning/sparse-conv-impl.h"
#endif
