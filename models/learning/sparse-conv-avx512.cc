// The sparse convolution kernel for x86-64-v4 (AVX-512), sixteen floats a vector.
// models/learning/CMakeLists.txt compiles this file alone with -march=x86-64-v4
// -ffp-contract=off; sparse-conv.cc calls it only on CPUs that have those instructions.

#ifdef FEDRAN_GEMM_X86_KERNELS
// GCC 12 warns about the deliberately undefined vectors inside its own avx512fintrin.h
// (GCC bug 105593), once per inlined use; nothing in this file is uninitialised.
#    pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#    define FEDRAN_SPARSE_CONV_FUNCTION SparseConvAvx512
#    define FEDRAN_GEMM_LANES           16
#    include "models/learning/sparse-conv-impl.h"
#endif
