// The convolution kernels for x86-64-v4 (AVX-512), sixteen floats a vector: direct-conv-impl.h
// and sparse-conv-impl.h. models/learning/CMakeLists.txt compiles this file alone with
// -march=x86-64-v4 -ffp-contract=off; direct-conv.cc and sparse-conv.cc call it only on CPUs
// that have those instructions.

#ifdef FEDRAN_GEMM_X86_KERNELS
// GCC 12 warns about the deliberately undefined vectors inside its own avx512fintrin.h
// (GCC bug 105593), once per inlined use; nothing in this file is uninitialised.
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#    define FEDRAN_GEMM_LANES                  16
#    define FEDRAN_DIRECT_CONV_FUNCTION        DirectConvAvx512
#    define FEDRAN_DIRECT_WEIGHT_GRAD_FUNCTION DirectWeightGradAvx512
#    define FEDRAN_SPARSE_CONV_FUNCTION        SparseConvAvx512
#    include "models/learning/direct-conv-impl.h"
#    include "models/learning/sparse-conv-impl.h"
#endif
