#ifndef FEDRAN_MODELS_LEARNING_EIGEN_CONFIG_H
#define FEDRAN_MODELS_LEARNING_EIGEN_CONFIG_H

// The one way the learning code includes Eigen, so that every translation unit sees the same
// configuration (differing Eigen macros between units would break the one-definition rule).
//
// EIGEN_DONT_PARALLELIZE: Eigen multithreads its products only when built with OpenMP, which
// fedran is not; the define keeps it that way even if some target adds -fopenmp later. One
// client's training must run on one core: the simulator decides how clients share the CPU,
// and benchmark figures are per core.

#ifndef EIGEN_DONT_PARALLELIZE
#    define EIGEN_DONT_PARALLELIZE
#endif

#include <Eigen/Core>

namespace fedran
{

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
using VectorMap = Eigen::Map<Eigen::VectorXf>;
using ConstVectorMap = Eigen::Map<const Eigen::VectorXf>;

} // namespace fedran

#endif
