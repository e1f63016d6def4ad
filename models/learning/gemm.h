#ifndef FEDRAN_MODELS_LEARNING_GEMM_H
#define FEDRAN_MODELS_LEARNING_GEMM_H

// A BLAS-style single-precision matrix product on row-major buffers, for the layers of the
// neural models.
//
// Why not `c.noalias() = a * b` on Eigen maps:
//  - Allocation. For a product Eigen packs its operands into blocks of up to about kc x mc
//    floats, taken from the stack below 128 KiB but from the heap above. A 784 x 200 dense
//    layer or a batched convolution needs larger blocks, so every training step would
//    allocate. Gemm() runs the same Eigen kernels with packing buffers that live per thread
//    and only grow: after the first step of a given shape, training allocates nothing.
//  - Instruction set. The library is built for baseline x86-64 (SSE2), where one core peaks
//    near 13 GFLOP/s; the MLP's 0.9 MFLOP per example then caps training near 20,000
//    examples/s. Gemm() also carries AVX2+FMA and AVX-512 builds of the kernel and runs the
//    best one the CPU supports (MLP training 2.5x and 4x faster), so the binary still runs
//    on any x86-64.
//
// Two kinds of kernel (GemmKind). The portable ones (the default) give the same bits on every
// instruction set, so a sweep over a cluster of mixed CPUs computes one set of numbers: every
// element is summed in a fixed order with separate multiplies and adds
// (gemm-portable-impl.h). The fast ones are Eigen's register-blocked kernels with FMA, whose
// results differ in the last bits between SSE2, AVX2 and AVX-512 (`fedran run
// --fast-math-kernels`; run.json records which kernel ran).

#include <cstddef>
#include <string>

namespace fedran
{

/// Whether Gemm() uses a stored operand as is or transposed.
enum class Op
{
    kNone,
    kTranspose,
};

/**
 * c = op(a) * op(b), or c += op(a) * op(b) when `accumulate` is true.
 *
 * All buffers are row-major with the given leading dimensions (floats between the starts of
 * consecutive rows as stored). op(a) is m x k: `a` is stored m x k (kNone) or k x m
 * (kTranspose); op(b) is k x n: `b` is stored k x n or n x k; c is m x n. `c` must not
 * overlap `a` or `b`. With k == 0, c becomes zero (or is left as is when accumulating).
 *
 * Single-threaded and thread-safe. Deterministic: the same inputs give the same bits. With
 * the portable kind (the default) the bits are also the same on every instruction set; with
 * the fast kind they can differ in the last bits between kernels (FMA, summation order).
 */
void Gemm(Op opA,
          Op opB,
          size_t m,
          size_t n,
          size_t k,
          const float* a,
          size_t lda,
          const float* b,
          size_t ldb,
          float* c,
          size_t ldc,
          bool accumulate = false);

/// The builds of the kernel, in increasing order of capability.
enum class GemmIsa
{
    kGeneric, ///< the library's own flags (SSE2 on x86-64)
    kAvx2,    ///< x86-64-v3: AVX2 + FMA
    kAvx512,  ///< x86-64-v4: AVX-512
};

/// "generic", "avx2" or "avx512".
const char* GemmIsaName(GemmIsa isa);

/// Which family of kernels Gemm() runs (see the top of this file).
enum class GemmKind
{
    kPortable, ///< the same bits on every instruction set (the default)
    kFast,     ///< Eigen's kernels with FMA: faster, bits depend on the instruction set
};

/// "portable" or "fast".
const char* GemmKindName(GemmKind kind);

/// Chooses the kind for the whole process; call before training starts.
void SetGemmKind(GemmKind kind);

/// The kind Gemm() runs.
GemmKind ActiveGemmKind();

/// The kernel Gemm() runs, e.g. "portable-avx512" or "fast-avx2" (recorded in run.json).
std::string ActiveGemmKernelName();

/// Whether this build carries the kernel and this CPU can run it.
bool GemmIsaAvailable(GemmIsa isa);

/**
 * The kernel Gemm() uses: the most capable available one, at most the level named by the
 * environment variable FEDRAN_GEMM_ISA if set ("generic", "avx2" or "avx512"). Chosen at the
 * first call. Throws std::invalid_argument if FEDRAN_GEMM_ISA holds another value.
 */
GemmIsa ActiveGemmIsa();

/// Gemm() on a given kernel (tests and benchmarks). Throws std::invalid_argument if the kernel
/// is not available.
void GemmOn(GemmIsa isa,
            GemmKind kind,
            Op opA,
            Op opB,
            size_t m,
            size_t n,
            size_t k,
            const float* a,
            size_t lda,
            const float* b,
            size_t ldb,
            float* c,
            size_t ldc,
            bool accumulate = false);

} // namespace fedran

#endif
