#ifndef FEDRAN_MODELS_LEARNING_GEMM_KERNEL_IMPL_H
#define FEDRAN_MODELS_LEARNING_GEMM_KERNEL_IMPL_H

// The body of one Gemm kernel (see gemm.h), included by exactly one .cc file per instruction
// set: gemm-generic.cc, gemm-avx2.cc and gemm-avx512.cc, the latter two compiled for newer
// x86-64 levels (models/CMakeLists.txt). The including file defines
// FEDRAN_GEMM_KERNEL_FUNCTION, the name of the function to define, and for the ISA-specific
// builds also renames the Eigen namespace (#define Eigen fedran_eigen_avx2, ...) before
// including this header. The renaming matters: Eigen is header-only, so without it the AVX
// build of, say, Eigen::internal::general_matrix_matrix_product<...>::run would carry the same
// symbol name as the baseline build in other files, and the linker would keep one of the two
// for the whole program, running AVX code on CPUs without it (or the slow code everywhere).
//
// It drives Eigen's internal GEMM entry point (Eigen::internal, stable through the 3.4 series
// that CMakeLists.txt requires) instead of the expression API, only to hand it packing buffers
// that outlive the call. Blocking heuristics, packing and the register-blocked micro-kernels
// for the compiled instruction set are all Eigen's.

#ifndef FEDRAN_GEMM_KERNEL_FUNCTION
#    error "define FEDRAN_GEMM_KERNEL_FUNCTION before including gemm-kernel-impl.h"
#endif

#include "models/learning/gemm-kernels.h"

#ifndef EIGEN_DONT_PARALLELIZE
#    define EIGEN_DONT_PARALLELIZE // see eigen-config.h
#endif
#include <Eigen/Core>

#include <algorithm>
#include <vector>

static_assert(EIGEN_WORLD_VERSION == 3 && EIGEN_MAJOR_VERSION == 4,
              "gemm-kernel-impl.h uses Eigen 3.4 internals; check general_matrix_matrix_product");

namespace fedran
{

namespace
{

using Index = Eigen::Index;

/// Eigen's blocking description, pointed at caller-owned packing buffers.
class ReusedBlocking : public Eigen::internal::level3_blocking<float, float>
{
  public:
    ReusedBlocking(Index kc, Index mc, Index nc, float* blockA, float* blockB)
    {
        m_kc = kc;
        m_mc = mc;
        m_nc = nc;
        m_blockA = blockA;
        m_blockB = blockB;
    }
};

/// Per-thread packing buffers that only grow, aligned as this ISA's packet stores require.
struct PackScratch
{
    std::vector<float, Eigen::aligned_allocator<float>> a;
    std::vector<float, Eigen::aligned_allocator<float>> b;
};

thread_local PackScratch t_pack;

float*
GrowPack(std::vector<float, Eigen::aligned_allocator<float>>& buffer, Index size)
{
    if (buffer.size() < static_cast<size_t>(size))
    {
        buffer.resize(static_cast<size_t>(size));
    }
    return buffer.data();
}

template<int LhsOrder, int RhsOrder>
void
Accumulate(Index m,
           Index n,
           Index k,
           const float* a,
           Index lda,
           const float* b,
           Index ldb,
           float* c,
           Index ldc)
{
    // Eigen computes a row-major product as the transposed column-major one, c' = b' a', so
    // its packed "lhs" block comes from b (n rows) and its "rhs" block from a (m columns).
    Index kc = k;
    Index mc = n;
    Index nc = m;
    Eigen::internal::computeProductBlockingSizes<float, float, 1, Index>(kc, mc, nc, 1);
    ReusedBlocking blocking(kc, mc, nc, GrowPack(t_pack.a, kc * mc), GrowPack(t_pack.b, kc * nc));
    Eigen::internal::general_matrix_matrix_product<
        Index,
        float,
        LhsOrder,
        false,
        float,
        RhsOrder,
        false,
        Eigen::RowMajor,
        1>::run(m, n, k, a, lda, b, ldb, c, 1, ldc, 1.0f, blocking, nullptr);
}

} // namespace

namespace gemm
{

void
FEDRAN_GEMM_KERNEL_FUNCTION(bool transposeA,
                            bool transposeB,
                            size_t m,
                            size_t n,
                            size_t k,
                            const float* a,
                            size_t lda,
                            const float* b,
                            size_t ldb,
                            float* c,
                            size_t ldc,
                            bool overwrite)
{
    if (overwrite)
    {
        for (size_t i = 0; i < m; ++i)
        {
            std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
        }
    }
    const auto im = static_cast<Index>(m);
    const auto in = static_cast<Index>(n);
    const auto ik = static_cast<Index>(k);
    const auto ia = static_cast<Index>(lda);
    const auto ib = static_cast<Index>(ldb);
    const auto ic = static_cast<Index>(ldc);
    // A stored row-major k x m matrix read transposed is a column-major m x k one.
    if (!transposeA && !transposeB)
    {
        Accumulate<Eigen::RowMajor, Eigen::RowMajor>(im, in, ik, a, ia, b, ib, c, ic);
    }
    else if (!transposeA)
    {
        Accumulate<Eigen::RowMajor, Eigen::ColMajor>(im, in, ik, a, ia, b, ib, c, ic);
    }
    else if (!transposeB)
    {
        Accumulate<Eigen::ColMajor, Eigen::RowMajor>(im, in, ik, a, ia, b, ib, c, ic);
    }
    else
    {
        Accumulate<Eigen::ColMajor, Eigen::ColMajor>(im, in, ik, a, ia, b, ib, c, ic);
    }
}

} // namespace gemm
} // namespace fedran

#endif
