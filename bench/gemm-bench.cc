// Matrix products on the models' shapes: the portable kernels (the default: the same bits on
// every instruction set), the fast ones (Eigen's micro-kernels with FMA, run through Gemm()'s
// reused packing buffers), and Eigen's own expression `c.noalias() = a * b` on maps, which is
// compiled for the library's baseline (SSE2) like the rest of fedran.
//
//   build/bench/gemm-bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// Names: BM_Gemm/<kind>-<isa>/<shape>, BM_EigenProduct/<shape>. Rates are FLOP/s (2 m n k).

#include "compression/rng.h"
#include "models/learning/gemm.h"

#include <Eigen/Core>
#include <benchmark/benchmark.h>

#include <vector>

namespace
{

using fedran::GemmIsa;
using fedran::GemmKind;
using fedran::Op;

struct Shape
{
    const char* name;
    size_t m, n, k;
    Op opA, opB;
};

// Batch 32 through the MLP's 784-200 layer: forward (x W'), input gradient (g W) and weight
// gradient (g' x); and a CNN convolution as a product of im2col patches.
const Shape kShapes[] = {
    {"mlp-forward-32x200x784", 32, 200, 784, Op::kNone, Op::kTranspose},
    {"mlp-input-grad-32x784x200", 32, 784, 200, Op::kNone, Op::kNone},
    {"mlp-weight-grad-200x784x32", 200, 784, 32, Op::kTranspose, Op::kNone},
    {"mlp-hidden-32x200x200", 32, 200, 200, Op::kNone, Op::kTranspose},
    {"cnn-conv-16x1500x25", 16, 1500, 25, Op::kNone, Op::kNone},
    // The default CNN on a batch of 32: conv1 (28 x 28 positions, 25-tap patches) forward and
    // weight gradient; conv2 (10 x 10 positions, 400-tap patches) forward, weight gradient and
    // input gradient.
    {"cnn-conv1-16x25088x25", 16, 25088, 25, Op::kNone, Op::kNone},
    {"cnn-conv1-wgrad-16x25x25088", 16, 25, 25088, Op::kNone, Op::kTranspose},
    {"cnn-conv2-32x3200x400", 32, 3200, 400, Op::kNone, Op::kNone},
    {"cnn-conv2-wgrad-32x400x3200", 32, 400, 3200, Op::kNone, Op::kTranspose},
    {"cnn-conv2-dgrad-400x3200x32", 400, 3200, 32, Op::kTranspose, Op::kNone},
    {"cnn-conv1-wgradT-25x16x25088", 25, 16, 25088, Op::kNone, Op::kTranspose},
    {"cnn-conv2-wgradT-400x32x3200", 400, 32, 3200, Op::kNone, Op::kTranspose},
};

std::vector<float>
Filled(size_t count, uint64_t seed)
{
    fedran::Rng rng(seed);
    std::vector<float> v(count);
    for (auto& x : v)
    {
        x = static_cast<float>(rng.Uniform() - 0.5);
    }
    return v;
}

void
BM_Gemm(benchmark::State& state, GemmKind kind, GemmIsa isa, Shape s)
{
    if (!fedran::GemmIsaAvailable(isa))
    {
        state.SkipWithError("this CPU lacks the instruction set");
        return;
    }
    const std::vector<float> a = Filled(s.m * s.k, 1);
    const std::vector<float> b = Filled(s.k * s.n, 2);
    std::vector<float> c(s.m * s.n);
    const size_t lda = s.opA == Op::kTranspose ? s.m : s.k;
    const size_t ldb = s.opB == Op::kTranspose ? s.k : s.n;
    for (auto _ : state)
    {
        fedran::GemmOn(isa,
                       kind,
                       s.opA,
                       s.opB,
                       s.m,
                       s.n,
                       s.k,
                       a.data(),
                       lda,
                       b.data(),
                       ldb,
                       c.data(),
                       s.n);
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    state.counters["FLOP/s"] =
        benchmark::Counter(2.0 * s.m * s.n * s.k, benchmark::Counter::kIsIterationInvariantRate);
}

void
BM_EigenProduct(benchmark::State& state, Shape s)
{
    using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const std::vector<float> a = Filled(s.m * s.k, 1);
    const std::vector<float> b = Filled(s.k * s.n, 2);
    std::vector<float> c(s.m * s.n);
    const bool ta = s.opA == Op::kTranspose;
    const bool tb = s.opB == Op::kTranspose;
    Eigen::Map<const Matrix> ma(a.data(), ta ? s.k : s.m, ta ? s.m : s.k);
    Eigen::Map<const Matrix> mb(b.data(), tb ? s.n : s.k, tb ? s.k : s.n);
    Eigen::Map<Matrix> mc(c.data(), s.m, s.n);
    for (auto _ : state)
    {
        if (ta && tb)
        {
            mc.noalias() = ma.transpose() * mb.transpose();
        }
        else if (ta)
        {
            mc.noalias() = ma.transpose() * mb;
        }
        else if (tb)
        {
            mc.noalias() = ma * mb.transpose();
        }
        else
        {
            mc.noalias() = ma * mb;
        }
        benchmark::DoNotOptimize(c.data());
        benchmark::ClobberMemory();
    }
    state.counters["FLOP/s"] =
        benchmark::Counter(2.0 * s.m * s.n * s.k, benchmark::Counter::kIsIterationInvariantRate);
}

int
Register()
{
    for (const Shape& s : kShapes)
    {
        for (GemmKind kind : {GemmKind::kPortable, GemmKind::kFast})
        {
            for (GemmIsa isa : {GemmIsa::kGeneric, GemmIsa::kAvx2, GemmIsa::kAvx512})
            {
                const std::string name = std::string("BM_Gemm/") + fedran::GemmKindName(kind) +
                                         "-" + fedran::GemmIsaName(isa) + "/" + s.name;
                benchmark::RegisterBenchmark(name.c_str(), BM_Gemm, kind, isa, s);
            }
        }
        benchmark::RegisterBenchmark((std::string("BM_EigenProduct/") + s.name).c_str(),
                                     BM_EigenProduct,
                                     s);
    }
    return 0;
}

const int kRegistered = Register();

} // namespace

BENCHMARK_MAIN();
