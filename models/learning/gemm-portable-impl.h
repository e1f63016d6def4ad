#ifndef FEDRAN_MODELS_LEARNING_GEMM_PORTABLE_IMPL_H
#define FEDRAN_MODELS_LEARNING_GEMM_PORTABLE_IMPL_H

// The body of one portable Gemm kernel (GemmKind::kPortable, see gemm.h), included by exactly
// one .cc file per instruction set next to the fast kernel (gemm-kernel-impl.h). The including
// file defines FEDRAN_GEMM_PORTABLE_FUNCTION (the function's name), FEDRAN_GEMM_LANES (floats
// in one vector register of its instruction set) and FEDRAN_GEMM_VECS (vectors across a tile),
// and is compiled with -ffp-contract=off (models/learning/CMakeLists.txt).
//
// Why the same bits on every instruction set: each element of c is computed as
//     c[i][j] = fma(a[i][k-1], b[k-1][j], ... fma(a[i][1], b[1][j], fma(a[i][0], b[0][j],
//     c[i][j])))
// one fused multiply-add (a single rounding) per term, in increasing order of the depth
// index, whatever the vector width. Vectors only run along j, so a lane holds one element and
// never meets another element's sum. AVX2 and AVX-512 have the FMA instruction; SSE2 does not,
// so the generic build forms the same correctly rounded result in double precision
// (FusedMultiplyAdd below). Blocking the depth into chunks keeps that order: a chunk starts
// from the c its predecessor stored. The files are compiled with -ffp-contract=off so that the
// compiler adds no fusions of its own elsewhere. Speed against Eigen's kernels:
// docs/performance.md.

#ifndef FEDRAN_GEMM_PORTABLE_FUNCTION
#    error "define FEDRAN_GEMM_PORTABLE_FUNCTION before including gemm-portable-impl.h"
#endif

#include "models/learning/fma-vector-impl.h"
#include "models/learning/gemm-kernels.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#if defined(__AVX512F__) || defined(__FMA__) || defined(__SSE2__)
#    include <immintrin.h>
#endif

namespace fedran::gemm
{

namespace
{

constexpr size_t kVecs = FEDRAN_GEMM_VECS;
constexpr size_t kNr = kLanes * kVecs; ///< columns of c in a register tile
constexpr size_t kMr = 4;              ///< rows of c in a register tile
constexpr size_t kKc = 256;            ///< depth of one chunk of the packed panel

/// Per-thread panel of b (up to kNr columns, every depth), aligned for vector loads; only grows.
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
            data.reset(static_cast<float*>(
                ::operator new[](floats * sizeof(float), std::align_val_t{64})));
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

typedef float Vec8 __attribute__((vector_size(8 * sizeof(float))));
typedef int Mask8 __attribute__((vector_size(8 * sizeof(int))));

/// r[i][q] becomes r[q][i]: unpack pairs, then quads, then the two 128-bit halves.
inline void
Transpose8x8(Vec8 (&r)[8])
{
    const Mask8 unpackLo{0, 8, 1, 9, 4, 12, 5, 13};
    const Mask8 unpackHi{2, 10, 3, 11, 6, 14, 7, 15};
    const Mask8 pairsLo{0, 1, 8, 9, 4, 5, 12, 13};
    const Mask8 pairsHi{2, 3, 10, 11, 6, 7, 14, 15};
    const Mask8 halvesLo{0, 1, 2, 3, 8, 9, 10, 11};
    const Mask8 halvesHi{4, 5, 6, 7, 12, 13, 14, 15};
    Vec8 t[8];
    for (size_t i = 0; i < 8; i += 2)
    {
        t[i] = __builtin_shuffle(r[i], r[i + 1], unpackLo);
        t[i + 1] = __builtin_shuffle(r[i], r[i + 1], unpackHi);
    }
    Vec8 u[8];
    for (size_t i = 0; i < 8; i += 4)
    {
        u[i] = __builtin_shuffle(t[i], t[i + 2], pairsLo);
        u[i + 1] = __builtin_shuffle(t[i], t[i + 2], pairsHi);
        u[i + 2] = __builtin_shuffle(t[i + 1], t[i + 3], pairsLo);
        u[i + 3] = __builtin_shuffle(t[i + 1], t[i + 3], pairsHi);
    }
    for (size_t q = 0; q < 4; ++q)
    {
        r[q] = __builtin_shuffle(u[q], u[q + 4], halvesLo);
        r[q + 4] = __builtin_shuffle(u[q], u[q + 4], halvesHi);
    }
}

/// Columns j0 .. j0 + width of op(b), every depth, nr floats a depth, zero beyond `width`.
/// Packing only moves floats, so its loop order is free: it follows the stored layout, whose
/// reads are then contiguous (a transposed b is read row by row, one panel column each).
void
PackPanel(const Operands& op, size_t k, size_t j0, size_t width, size_t nr, float* panel)
{
    if (!op.tb)
    {
        for (size_t p = 0; p < k; ++p)
        {
            // Vector-sized copies: a copy of a run-time length compiles to `rep movs`, whose
            // start-up costs more than these short rows.
            float* row = panel + p * nr;
            const float* src = op.b + p * op.ldb + j0;
            size_t jj = 0;
            for (; jj + kLanes <= width; jj += kLanes)
            {
                std::memcpy(row + jj, src + jj, sizeof(Vec));
            }
            for (; jj < width; ++jj)
            {
                row[jj] = src[jj];
            }
            for (; jj < nr; ++jj)
            {
                row[jj] = 0.0f;
            }
        }
        return;
    }
    if (width < nr)
    {
        for (size_t p = 0; p < k; ++p)
        {
            std::fill(panel + p * nr + width, panel + (p + 1) * nr, 0.0f);
        }
    }
    // 8 x 8 blocks: eight stored rows of b (panel columns jj..jj+7), eight depths each, are
    // transposed in registers and stored as eight panel rows. The rest one float at a time.
    constexpr size_t kBlock = 8;
    const size_t fullDepth = k / kBlock * kBlock;
    const size_t fullWidth = width / kBlock * kBlock;
    for (size_t jj = 0; jj < fullWidth; jj += kBlock)
    {
        const float* src = op.b + (j0 + jj) * op.ldb;
        for (size_t p = 0; p < fullDepth; p += kBlock)
        {
            Vec8 r[kBlock];
            for (size_t q = 0; q < kBlock; ++q)
            {
                std::memcpy(&r[q], src + q * op.ldb + p, sizeof(Vec8));
            }
            Transpose8x8(r);
            for (size_t q = 0; q < kBlock; ++q)
            {
                std::memcpy(panel + (p + q) * nr + jj, &r[q], sizeof(Vec8));
            }
        }
    }
    for (size_t jj = 0; jj < width; ++jj)
    {
        const size_t from = jj < fullWidth ? fullDepth : 0;
        for (size_t p = from; p < k; ++p)
        {
            panel[p * nr + jj] = op.b[(j0 + jj) * op.ldb + p];
        }
    }
}

/// Rows i .. i + Rows of c, columns j0 .. j0 + width (width <= Vecs * kLanes), depths
/// p0 .. p1, from a panel of Vecs * kLanes floats a depth.
template<size_t Rows, size_t Vecs>
void
Tile(const Operands& op,
     size_t i,
     size_t p0,
     size_t p1,
     const float* panel,
     size_t ldp,
     float* c,
     size_t ldc,
     size_t j0,
     size_t width,
     bool zero)
{
    constexpr size_t nr = Vecs * kLanes;
    Vec acc[Rows][Vecs];
    // A full-width tile moves c straight to and from the registers; a narrow one through a
    // zero-padded buffer (this matters where the depth is short: a convolution's 25). The
    // first chunk of an overwriting product starts its sums from +0, as they would from a
    // cleared c, without reading c.
    const bool full = width == nr;
    for (size_t r = 0; r < Rows; ++r)
    {
        float lanes[nr] = {};
        if (!zero)
        {
            std::memcpy(lanes, c + (i + r) * ldc + j0, (full ? nr : width) * sizeof(float));
        }
        for (size_t v = 0; v < Vecs; ++v)
        {
            acc[r][v] = LoadVec(lanes + v * kLanes);
        }
    }
    const bool ta = op.ta;
    const float* a = op.a;
    const size_t lda = op.lda;
    for (size_t p = p0; p < p1; ++p)
    {
        Vec row[Vecs];
        for (size_t v = 0; v < Vecs; ++v)
        {
            row[v] = LoadVec(panel + p * ldp + v * kLanes);
        }
        for (size_t r = 0; r < Rows; ++r)
        {
            const float x = ta ? a[p * lda + i + r] : a[(i + r) * lda + p];
            for (size_t v = 0; v < Vecs; ++v)
            {
                acc[r][v] = FusedMultiplyAdd(row[v], x, acc[r][v]);
            }
        }
    }
    for (size_t r = 0; r < Rows; ++r)
    {
        if (full)
        {
            std::memcpy(c + (i + r) * ldc + j0, acc[r], sizeof(acc[r]));
            continue;
        }
        float lanes[nr];
        std::memcpy(lanes, acc[r], sizeof(lanes));
        std::memcpy(c + (i + r) * ldc + j0, lanes, width * sizeof(float));
    }
}

/// Every row of c against one packed panel of Vecs vectors, chunk by chunk of depth.
template<size_t Vecs>
void
Panel(const Operands& op,
      size_t m,
      size_t k,
      const float* panel,
      size_t ldp,
      float* c,
      size_t ldc,
      size_t j0,
      size_t width,
      bool overwrite)
{
    // Tiles as tall as the registers allow, so that enough independent sums are in flight to
    // hide the latency of the fused multiply-add and each load of b serves more rows: 8 rows
    // of one vector (a convolution's weight gradient: one or two vectors of columns and a
    // depth of thousands), 6 rows of two or four vectors where there are 32 vector registers
    // (AVX-512) or 16 of 8 floats (AVX2: 6 x 2 sums), else 4; the last rows in tiles of 4, 2
    // and 1. The tile shape does not change any element's order of operations.
    constexpr size_t rows = Vecs == 1                                    ? 2 * kMr
                            : (Vecs == 2 && kLanes >= 8) || kLanes >= 16 ? 6
                                                                         : kMr;
    for (size_t p0 = 0; p0 < k; p0 += kKc)
    {
        const size_t p1 = std::min(k, p0 + kKc);
        const bool zero = overwrite && p0 == 0;
        size_t i = 0;
        for (; i + rows <= m; i += rows)
        {
            Tile<rows, Vecs>(op, i, p0, p1, panel, ldp, c, ldc, j0, width, zero);
        }
        if constexpr (rows > kMr)
        {
            for (; i + kMr <= m; i += kMr)
            {
                Tile<kMr, Vecs>(op, i, p0, p1, panel, ldp, c, ldc, j0, width, zero);
            }
        }
        for (; i + 2 <= m; i += 2)
        {
            Tile<2, Vecs>(op, i, p0, p1, panel, ldp, c, ldc, j0, width, zero);
        }
        for (; i < m; ++i)
        {
            Tile<1, Vecs>(op, i, p0, p1, panel, ldp, c, ldc, j0, width, zero);
        }
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
                              size_t ldc,
                              bool overwrite)
{
    const Operands op{transposeA, transposeB, a, lda, b, ldb};
    float* panel = t_panel.Grow(k * kNr);
    for (size_t j0 = 0; j0 < n; j0 += kNr)
    {
        const size_t width = std::min(kNr, n - j0);
        // A narrow last panel (or a narrow c: a convolution's weight gradient has 25 columns)
        // takes as few vectors as cover it, so that no work is spent on zero columns.
        const size_t vecs = (width + kLanes - 1) / kLanes;
        if (!transposeB && width == kNr)
        {
            // A full panel of a b stored k x n is read in place: packing would only copy it
            // (a convolution's column matrix is as large as the product's work is short).
            Panel<kVecs>(op, m, k, b + j0, ldb, c, ldc, j0, width, overwrite);
            continue;
        }
        PackPanel(op, k, j0, width, vecs * kLanes, panel);
        const size_t ldp = vecs * kLanes;
        switch (vecs)
        {
            case 1:
                Panel<1>(op, m, k, panel, ldp, c, ldc, j0, width, overwrite);
                break;
#if FEDRAN_GEMM_VECS >= 2
            case 2:
                Panel<2>(op, m, k, panel, ldp, c, ldc, j0, width, overwrite);
                break;
#endif
#if FEDRAN_GEMM_VECS >= 3
            case 3:
                Panel<3>(op, m, k, panel, ldp, c, ldc, j0, width, overwrite);
                break;
#endif
#if FEDRAN_GEMM_VECS >= 4
            case 4:
                Panel<4>(op, m, k, panel, ldp, c, ldc, j0, width, overwrite);
                break;
#endif
            default:
                break;
        }
    }
}

} // namespace fedran::gemm

#endif
