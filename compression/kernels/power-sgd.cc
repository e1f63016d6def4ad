#include "compression/internal/power-sgd.h"

#include <Eigen/Core>

#include <cmath>
#include <stdexcept>
#include <string>

namespace fedran::internal
{

namespace
{

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

Eigen::Map<const RowMajor>
AsEigen(ConstMatrixView view)
{
    return {view.Data().data(),
            static_cast<Eigen::Index>(view.Rows()),
            static_cast<Eigen::Index>(view.Cols())};
}

Eigen::Map<RowMajor>
AsEigen(MutableMatrixView view)
{
    return {view.Data().data(),
            static_cast<Eigen::Index>(view.Rows()),
            static_cast<Eigen::Index>(view.Cols())};
}

void
Require(bool condition, const char* what)
{
    if (!condition)
    {
        throw std::invalid_argument(std::string("power-sgd: ") + what);
    }
}

} // namespace

std::optional<MatrixShape>
ReshapeAsMatrix(const TensorSpec& tensor)
{
    if (tensor.shape.size() < 2)
    {
        return std::nullopt;
    }
    const uint64_t rows = tensor.shape[0];
    const uint64_t size = tensor.Size();
    if (size == 0)
    {
        return std::nullopt;
    }
    return MatrixShape{rows, size / rows};
}

bool
WorthCompressing(uint64_t n, uint64_t m, uint32_t rank, double minCompressionRate)
{
    // In double: n * m can exceed 2^64 only for tensors no layout accepts, and the products
    // of the left side overflow nothing either.
    return static_cast<double>(n + m) * rank * minCompressionRate <
           static_cast<double>(n) * static_cast<double>(m);
}

template<typename T>
MatrixView<T>::MatrixView(std::span<T> data, size_t rows, size_t cols)
    : m_data(data)
    , m_rows(rows)
    , m_cols(cols)
{
    Require(cols == 0 || rows <= data.size() / cols, "matrix view larger than its data");
    Require(data.size() == rows * cols, "matrix view size differs from its data");
}

template class MatrixView<const float>;
template class MatrixView<float>;

void
ComputeP(ConstMatrixView m, ConstMatrixView q, MutableMatrixView p)
{
    Require(q.Rows() == m.Cols() && p.Rows() == m.Rows() && p.Cols() == q.Cols(),
            "ComputeP shapes: need M n x m, Q m x r, P n x r");
    AsEigen(p).noalias() = AsEigen(m).lazyProduct(AsEigen(q));
}

void
ComputeQ(ConstMatrixView m, ConstMatrixView p, MutableMatrixView q)
{
    Require(p.Rows() == m.Rows() && q.Rows() == m.Cols() && q.Cols() == p.Cols(),
            "ComputeQ shapes: need M n x m, P n x r, Q m x r");
    AsEigen(q).noalias() = AsEigen(m).transpose().lazyProduct(AsEigen(p));
}

void
Reconstruct(ConstMatrixView p, ConstMatrixView q, MutableMatrixView mHat)
{
    Require(p.Cols() == q.Cols() && mHat.Rows() == p.Rows() && mHat.Cols() == q.Rows(),
            "Reconstruct shapes: need P n x r, Q m x r, M_hat n x m");
    AsEigen(mHat).noalias() = AsEigen(p).lazyProduct(AsEigen(q).transpose());
}

void
Orthonormalize(MutableMatrixView p, double relativeEpsilon)
{
    const size_t n = p.Rows();
    const size_t r = p.Cols();
    float* data = p.Data().data();
    // Column j is data[k * r + j]; r is small, so the strided walks stay in the same lines.
    auto dot = [&](size_t a, size_t b) {
        double sum = 0.0;
        for (size_t k = 0; k < n; ++k)
        {
            sum += static_cast<double>(data[k * r + a]) * data[k * r + b];
        }
        return sum;
    };
    for (size_t j = 0; j < r; ++j)
    {
        const double before = std::sqrt(dot(j, j));
        // Modified Gram-Schmidt: project out each earlier (already unit or zero) column from
        // the current residual, not from the original column.
        for (size_t i = 0; i < j; ++i)
        {
            const auto projection = static_cast<float>(dot(i, j));
            for (size_t k = 0; k < n; ++k)
            {
                data[k * r + j] -= projection * data[k * r + i];
            }
        }
        const double after = std::sqrt(dot(j, j));
        const bool dependent = !(after > relativeEpsilon * before) || !std::isfinite(after);
        // Assigning zero (rather than scaling by it) also clears NaN and inf.
        const auto scale = static_cast<float>(1.0 / after);
        for (size_t k = 0; k < n; ++k)
        {
            data[k * r + j] = dependent ? 0.0f : data[k * r + j] * scale;
        }
    }
}

} // namespace fedran::internal
