#ifndef FEDRAN_COMPRESSION_INTERNAL_POWER_SGD_H
#define FEDRAN_COMPRESSION_INTERNAL_POWER_SGD_H

// Building blocks of PowerSGD (Vogels, Karimireddy, Jaggi, NeurIPS'19), for the codec that
// will use them once the two-phase network protocol exists. One step for a tensor reshaped to
// an n x m matrix M with rank r and the previous round's Q (m x r; warm start):
//
//   P = M Q                 (ComputeP; the server sums P over clients)
//   P = orthonormalize(P)   (Orthonormalize; on the summed P)
//   Q = M^T P               (ComputeQ; the server averages Q)
//   M_hat = P Q^T           (Reconstruct)
//
// Matrices are dense, row-major float32 views over caller-owned memory (M is the tensor's own
// slice of the update, no copy). Products run through Eigen; Gram-Schmidt is plain loops, as
// r is small.

#include "compression/codec.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace fedran::internal
{

struct MatrixShape
{
    uint64_t rows;
    uint64_t cols;
};

/// n = shape[0], m = the product of the other dimensions (a conv kernel (out, in, kh, kw)
/// becomes out x in*kh*kw). Scalars, 1-D tensors and empty tensors give nullopt: PowerSGD
/// sends them dense.
std::optional<MatrixShape> ReshapeAsMatrix(const TensorSpec& tensor);

/// PyTorch's test: compress only if (n + m) * rank * minCompressionRate < n * m, i.e. the
/// factors are at least minCompressionRate times smaller than the matrix.
bool WorthCompressing(uint64_t n, uint64_t m, uint32_t rank, double minCompressionRate);

/// A rows x cols row-major view; the constructor checks data.size() == rows * cols
/// (std::invalid_argument).
template<typename T>
class MatrixView
{
  public:
    MatrixView(std::span<T> data, size_t rows, size_t cols);

    std::span<T> Data() const
    {
        return m_data;
    }

    size_t Rows() const
    {
        return m_rows;
    }

    size_t Cols() const
    {
        return m_cols;
    }

  private:
    std::span<T> m_data;
    size_t m_rows;
    size_t m_cols;
};

using ConstMatrixView = MatrixView<const float>;
using MutableMatrixView = MatrixView<float>;

/// P = M Q: M is n x m, Q is m x r, P is n x r. Shape mismatches throw std::invalid_argument.
void ComputeP(ConstMatrixView m, ConstMatrixView q, MutableMatrixView p);

/// Q = M^T P: M is n x m, P is n x r, Q is m x r.
void ComputeQ(ConstMatrixView m, ConstMatrixView p, MutableMatrixView q);

/// M_hat = P Q^T: P is n x r, Q is m x r, M_hat is n x m.
void Reconstruct(ConstMatrixView p, ConstMatrixView q, MutableMatrixView mHat);

/// Makes the columns of P orthonormal in place by modified Gram-Schmidt (dot products in
/// double). A column whose norm after removing the earlier directions is at most
/// relativeEpsilon times its norm before (or is zero) is numerically dependent: it is set to
/// zero rather than blown up to a unit vector of rounding noise or divided by zero, so P Q^T
/// simply loses that rank-one term.
void Orthonormalize(MutableMatrixView p, double relativeEpsilon = 1e-5);

} // namespace fedran::internal

#endif
