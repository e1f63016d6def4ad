// The SGD step's loops for x86-64-v4 (AVX-512): sgd-step-impl.h. models/learning/CMakeLists.txt
// compiles this file alone for that level with -ffp-contract=off; sgd-step.cc calls it only on
// CPUs that have those instructions.

#ifdef FEDRAN_GEMM_X86_KERNELS
#    define FEDRAN_STEP_FUNCTION StepForAvx512
#    include "models/learning/sgd-step-impl.h"
#endif
