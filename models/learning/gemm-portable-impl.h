#ifndef FEDRAN_MODELS_LEARNING_GEMM_PORTABLE_IMPL_H
#define FEDRAN_MODELS_LEARNING_GEMM_PORTABLE_IMPL_H

// The body of one portable Gemm kernel (GemmKind::kPortable, see gemm.h), included by exactly
// one .cc file per instruction set next to the fast kernel (gemm-kernel-impl.h). The including
// file defines FEDRAN_GEMM_PORTABLE_FUNCTION (the function's name), FEDRAN_GEMM_LANES (floats
// in one vector register of its instruction set) and FEDRAN_GEMM_VECS (vectors across a tile),
// and is compiled with -ffp-contract=off (models/learning/CMakeLists.txt).
//
// Why the same bits on every instruction set: each element of c is computed as
//     c[i][j] = ((c[i][j] + a[i][0] * b[0][j]) + a[i][1] * b[1][j]) + ... + a[i][k-1] * b[k-1][j]
// with a rounded multiply and a rounded add for every term, in increasing order of the depth
// index, whatever the vector width. Vectors only run along j, so a lane holds one element and
// never meets another element's sum; and with fp-contract off the compiler may not fuse a
// multiply and an add into an FMA (one rounding instead of two), which the AVX2 and AVX-512
// builds could otherwise do and SSE2 cannot. Blocking the depth into chunks keeps that order:
// a chunk starts from the c its predecessor stored. What this costs against Eigen's kernels
// (FMA, and sums split across registers): docs/performance.md.

#ifndef FEDRAN_GEMM_PORTABLE_FUNCTION
#    error "define FEDRAN_GEMM_PORTABLE_FUNCTION before including gemm-portable-impl.h"
#endif

#include "models/learning/gemm-kernels.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <new>

namespace fedran::gemm
{

namespace
{

constexpr size_t kLanes = FEDRAN_GEMM_LANES;
constexpr size_t kVecs = FEDRAN_GEMM_VECS;
constexpr size_t kNr = kLanes * kVecs; ///< columns of c in a register tile
constexpr size_t kMr = 4;              ///< rows of c in a register tile
constexpr size_t kKc = 256;            ///< depth of one chunk of the packed panel

typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));

/// Per-thread panel of b (kNr columns, every depth), aligned for vector loads; only grows.
struct Panel
{
    struct Free
    {
        void operator()(float* p) const
        {
            ::operator delete[](p, std::align_val_t{64});
        }
    };

    std::unique_ptr<float[], Free> data;
    size_t size = 0;

    float* Grow(size_t floats)
    {
        if (floats > size)
        {
            data.reset(static_cast<float*>(::operator new[](floats * sizeof(float),
                                                            std::align_val_t{64})));
            size = floats;
        }
        return data.get();
    }
};

thread_local Panel t_panel;

struct Operands
{
    bool ta;
    bool tb;
    const float* a;
    size_t lda;
    const float* b;
    size_t ldb;

    float A(size_t i, size_t p) const
    {
        return ta ? a[p * lda + i] : a[i * lda + p];
    }

    float B(size_t p, size_t j) const
    {
        return tb ? b[j * ldb + p] : b[p * ldb + j];
    }
};

/// Columns j0 .. j0 + width of op(b), every depth, kNr floats a depth, zero beyond `width`.
void
PackPanel(const Operands& op, size_t k, size_t j0, size_t width, float* panel)
{
    for (size_t p = 0; p < k; ++p)
    {
        float* row = panel + p * kNr;
        for (size_t jj = 0; jj < width; ++jj)
        {
            row[jj] = op.B(p, j0 + jj);
        }
        std::fill(row + width, row + kNr, 0.0f);
    }
}

/// Rows i .. i + Rows of c, columns j0 .. j0 + width, depths p0 .. p1.
template<size_t Rows>
void
Tile(const Operands& op,
     size_t i,
     size_t p0,
     size_t p1,
     const float* panel,
     float* c,
     size_t ldc,
     size_t j0,
     size_t width)
{
    Vec acc[Rows][kVecs];
    for (size_t r = 0; r < Rows; ++r)
    {
        float lanes[kNr] = {};
        std::memcpy(lanes, c + (i + r) * ldc + j0, width * sizeof(float));
        std::memcpy(acc[r], lanes, sizeof(lanes));
    }
    for (size_t p = p0; p < p1; ++p)
    {
        const Vec* row = reinterpret_cast<const Vec*>(panel + p * kNr);
        for (size_t r = 0; r < Rows; ++r)
        {
            const float x = op.A(i + r, p);
            for (size_t v = 0; v < kVecs; ++v)
            {
                acc[r][v] = acc[r][v] + row[v] * x;
            }
        }
    }
    for (size_t r = 0; r < Rows; ++r)
    {
        float lanes[kNr];
        std::memcpy(lanes, acc[r], sizeof(lanes));
        std::memcpy(c + (i + r) * ldc + j0, lanes, width * sizeof(float));
    }
}

} // namespace

void
FEDRAN_GEMM_PORTABLE_FUNCTION(bool transposeA,
                              bool transposeB,
                              size_t m,
                              size_t n,
                              size_t k,
                              const float* a,
                              size_t lda,
                              const float* b,
                              size_t ldb,
                              float* c,
                              size_t ldc)
{
    const Operands op{transposeA, transposeB, a, lda, b, ldb};
    float* panel = t_panel.Grow(k * kNr);
    for (size_t j0 = 0; j0 < n; j0 += kNr)
    {
        const size_t width = std::min(kNr, n - j0);
        PackPanel(op, k, j0, width, panel);
        for (size_t p0 = 0; p0 < k; p0 += kKc)
        {
            const size_t p1 = std::min(k, p0 + kKc);
            size_t i = 0;
            for (; i + kMr <= m; i += kMr)
            {
                Tile<kMr>(op, i, p0, p1, panel, c, ldc, j0, width);
            }
            for (; i < m; ++i)
            {
                Tile<1>(op, i, p0, p1, panel, c, ldc, j0, width);
            }
        }
    }
}

} // namespace fedran::gemm

#endif
