#include "models/learning/recurrent-layer.h"

#include "models/learning/activations.h"
#include "models/learning/gemm.h"
#include "models/learning/scratch.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace fedran
{

namespace
{

/// Floating-point operations charged for one logistic or tanh (activations.h): a range
/// reduction, a degree-7 polynomial, the scaling, then an add and a divide. An estimate,
/// used only for the simulated compute clock.
constexpr double kNonlinearityFlops = 20.0;

const char* const kLstmGates[] = {"i", "f", "g", "o"};
const char* const kGruGates[] = {"r", "z", "n"};

} // namespace

RecurrentLayer::RecurrentLayer(RecurrentCell cell,
                               uint32_t inputs,
                               uint32_t hidden,
                               std::string name)
    : m_cell(cell)
    , m_inputs(inputs)
    , m_hidden(hidden)
    , m_name(std::move(name))
{
    const size_t gh = Gates() * size_t{hidden};
    m_hhOffset = gh * inputs;
    m_biasOffset = m_hhOffset + gh * hidden;
    m_paramCount = m_biasOffset + gh + (cell == RecurrentCell::kGru ? hidden : 0);
}

void
RecurrentLayer::AppendTensors(std::vector<TensorSpec>& tensors) const
{
    const char* const* gates = m_cell == RecurrentCell::kLstm ? kLstmGates : kGruGates;
    for (size_t g = 0; g < Gates(); ++g)
    {
        tensors.push_back({m_name + ".weight_ih_" + gates[g], {m_hidden, m_inputs}});
    }
    for (size_t g = 0; g < Gates(); ++g)
    {
        tensors.push_back({m_name + ".weight_hh_" + gates[g], {m_hidden, m_hidden}});
    }
    for (size_t g = 0; g < Gates(); ++g)
    {
        tensors.push_back({m_name + ".bias_" + gates[g], {m_hidden}});
    }
    if (m_cell == RecurrentCell::kGru)
    {
        tensors.push_back({m_name + ".bias_hn", {m_hidden}});
    }
}

void
RecurrentLayer::InitParams(float* params, Rng& rng) const
{
    const double bound = 1.0 / std::sqrt(static_cast<double>(m_hidden));
    for (size_t k = 0; k < m_biasOffset; ++k)
    {
        params[k] = static_cast<float>(bound * (2.0 * rng.Uniform() - 1.0));
    }
    std::fill(params + m_biasOffset, params + m_paramCount, 0.0f);
    if (m_cell == RecurrentCell::kLstm)
    {
        // A forget bias of 1 lets gradients flow through the cell state from the start
        // (Jozefowicz, Zaremba and Sutskever, ICML 2015).
        std::fill(params + m_biasOffset + m_hidden, params + m_biasOffset + 2 * m_hidden, 1.0f);
    }
}

const float*
RecurrentLayer::Forward(const float* params,
                        const float* input,
                        size_t steps,
                        size_t n,
                        RecurrentTrace& trace) const
{
    const size_t hidden = m_hidden;
    const size_t gh = Gates() * hidden;
    // The input side of every step at once: one product over steps * n rows.
    float* gates = GrowScratch(trace.gates, steps * n * gh);
    Gemm(Op::kNone,
         Op::kTranspose,
         steps * n,
         gh,
         m_inputs,
         input,
         m_inputs,
         params,
         m_inputs,
         gates,
         gh);
    float* h = GrowScratch(trace.h, (steps + 1) * n * hidden);
    std::fill(h, h + n * hidden, 0.0f);
    if (m_cell == RecurrentCell::kLstm)
    {
        LstmSteps(params, steps, n, trace);
    }
    else
    {
        GruSteps(params, steps, n, trace);
    }
    return trace.h.data() + n * hidden;
}

void
RecurrentLayer::LstmSteps(const float* params, size_t steps, size_t n, RecurrentTrace& trace) const
{
    const size_t hidden = m_hidden;
    const size_t gh = 4 * hidden;
    const float* whh = params + m_hhOffset;
    const float* bias = params + m_biasOffset;
    float* c = GrowScratch(trace.c, (steps + 1) * n * hidden);
    float* tanhC = GrowScratch(trace.tanhC, steps * n * hidden);
    std::fill(c, c + n * hidden, 0.0f);
    for (size_t t = 0; t < steps; ++t)
    {
        float* a = trace.gates.data() + t * n * gh;
        const float* hPrev = trace.h.data() + t * n * hidden;
        float* hNext = trace.h.data() + (t + 1) * n * hidden;
        const float* cPrev = c + t * n * hidden;
        float* cNext = c + (t + 1) * n * hidden;
        float* tc = tanhC + t * n * hidden;
        Gemm(Op::kNone, Op::kTranspose, n, gh, hidden, hPrev, hidden, whh, hidden, a, gh, true);
        for (size_t i = 0; i < n; ++i)
        {
            // Gate by gate over contiguous blocks, so that the activations vectorise.
            float* row = a + i * gh;
            for (size_t j = 0; j < gh; ++j)
            {
                row[j] += bias[j];
            }
            SigmoidInPlace(row, 2 * hidden); // i, f
            TanhInPlace(row + 2 * hidden, hidden);
            SigmoidInPlace(row + 3 * hidden, hidden);
            const size_t k = i * hidden;
            for (size_t j = 0; j < hidden; ++j)
            {
                cNext[k + j] = row[hidden + j] * cPrev[k + j] + row[j] * row[2 * hidden + j];
            }
            Tanh(cNext + k, tc + k, hidden);
            for (size_t j = 0; j < hidden; ++j)
            {
                hNext[k + j] = row[3 * hidden + j] * tc[k + j];
            }
        }
    }
}

void
RecurrentLayer::GruSteps(const float* params, size_t steps, size_t n, RecurrentTrace& trace) const
{
    const size_t hidden = m_hidden;
    const size_t gh = 3 * hidden;
    const float* whh = params + m_hhOffset;
    const float* bias = params + m_biasOffset;
    const float* biasHn = bias + gh;
    float* hh = GrowScratch(trace.hh, n * gh);
    float* u = GrowScratch(trace.u, steps * n * hidden);
    for (size_t t = 0; t < steps; ++t)
    {
        float* a = trace.gates.data() + t * n * gh;
        const float* hPrev = trace.h.data() + t * n * hidden;
        float* hNext = trace.h.data() + (t + 1) * n * hidden;
        float* ut = u + t * n * hidden;
        // The hidden side apart: the reset gate multiplies its candidate part.
        Gemm(Op::kNone, Op::kTranspose, n, gh, hidden, hPrev, hidden, whh, hidden, hh, gh);
        for (size_t i = 0; i < n; ++i)
        {
            float* row = a + i * gh;
            const float* hrow = hh + i * gh;
            const size_t k = i * hidden;
            for (size_t j = 0; j < 2 * hidden; ++j)
            {
                row[j] = row[j] + bias[j] + hrow[j];
            }
            SigmoidInPlace(row, 2 * hidden); // r, z
            for (size_t j = 0; j < hidden; ++j)
            {
                const float uv = hrow[2 * hidden + j] + biasHn[j];
                ut[k + j] = uv;
                row[2 * hidden + j] = row[2 * hidden + j] + bias[2 * hidden + j] + row[j] * uv;
            }
            TanhInPlace(row + 2 * hidden, hidden);
            for (size_t j = 0; j < hidden; ++j)
            {
                const float update = row[hidden + j];
                hNext[k + j] = (1.0f - update) * row[2 * hidden + j] + update * hPrev[k + j];
            }
        }
    }
}

void
RecurrentLayer::Backward(const float* params,
                         const float* input,
                         size_t steps,
                         size_t n,
                         RecurrentTrace& trace,
                         const float* dOutput,
                         bool lastOnly,
                         float* grad,
                         float* dInput) const
{
    const size_t hidden = m_hidden;
    const size_t gh = Gates() * hidden;
    const size_t rows = steps * n;
    GrowScratch(trace.dA, rows * gh);
    std::fill_n(GrowScratch(trace.dh, n * hidden), n * hidden, 0.0f);
    const bool lstm = m_cell == RecurrentCell::kLstm;
    if (lstm)
    {
        std::fill_n(GrowScratch(trace.dc, n * hidden), n * hidden, 0.0f);
        LstmBackSteps(params, steps, n, trace, dOutput, lastOnly);
    }
    else
    {
        GrowScratch(trace.dAh, rows * gh);
        GruBackSteps(params, steps, n, trace, dOutput, lastOnly);
    }
    const float* dA = trace.dA.data();
    // The LSTM's hidden-side products see the same pre-activation gradient as its input side.
    const float* dAh = lstm ? dA : trace.dAh.data();

    // Weight gradients summed over every step and sequence, one product each.
    Gemm(Op::kTranspose, Op::kNone, gh, m_inputs, rows, dA, gh, input, m_inputs, grad, m_inputs);
    Gemm(Op::kTranspose,
         Op::kNone,
         gh,
         hidden,
         rows,
         dAh,
         gh,
         trace.h.data(),
         hidden,
         grad + m_hhOffset,
         hidden);
    float* gb = grad + m_biasOffset;
    std::fill(gb, grad + m_paramCount, 0.0f);
    for (size_t r = 0; r < rows; ++r)
    {
        const float* row = dA + r * gh;
        for (size_t j = 0; j < gh; ++j)
        {
            gb[j] += row[j];
        }
    }
    if (!lstm)
    {
        float* gbn = gb + gh;
        for (size_t r = 0; r < rows; ++r)
        {
            const float* row = dAh + r * gh + 2 * hidden;
            for (size_t j = 0; j < hidden; ++j)
            {
                gbn[j] += row[j];
            }
        }
    }
    if (dInput != nullptr)
    {
        Gemm(Op::kNone, Op::kNone, rows, m_inputs, gh, dA, gh, params, m_inputs, dInput, m_inputs);
    }
}

void
RecurrentLayer::LstmBackSteps(const float* params,
                              size_t steps,
                              size_t n,
                              RecurrentTrace& trace,
                              const float* dOutput,
                              bool lastOnly) const
{
    const size_t hidden = m_hidden;
    const size_t gh = 4 * hidden;
    const float* whh = params + m_hhOffset;
    float* dh = trace.dh.data();
    float* dc = trace.dc.data();
    for (size_t t = steps; t-- > 0;)
    {
        const float* ext =
            lastOnly ? (t + 1 == steps ? dOutput : nullptr) : dOutput + t * n * hidden;
        const float* a = trace.gates.data() + t * n * gh;
        float* d = trace.dA.data() + t * n * gh;
        const float* cPrev = trace.c.data() + t * n * hidden;
        const float* tc = trace.tanhC.data() + t * n * hidden;
        for (size_t i = 0; i < n; ++i)
        {
            const float* row = a + i * gh;
            float* drow = d + i * gh;
            for (size_t j = 0; j < hidden; ++j)
            {
                const size_t k = i * hidden + j;
                const float dhv = ext != nullptr ? dh[k] + ext[k] : dh[k];
                const float in = row[j];
                const float forget = row[hidden + j];
                const float cand = row[2 * hidden + j];
                const float out = row[3 * hidden + j];
                const float dcv = dc[k] + dhv * out * (1.0f - tc[k] * tc[k]);
                drow[j] = dcv * cand * in * (1.0f - in);
                drow[hidden + j] = dcv * cPrev[k] * forget * (1.0f - forget);
                drow[2 * hidden + j] = dcv * in * (1.0f - cand * cand);
                drow[3 * hidden + j] = dhv * tc[k] * out * (1.0f - out);
                dc[k] = dcv * forget;
            }
        }
        if (t > 0) // h[0] is a constant: nothing to carry before the first step
        {
            Gemm(Op::kNone, Op::kNone, n, hidden, gh, d, gh, whh, hidden, dh, hidden);
        }
    }
}

void
RecurrentLayer::GruBackSteps(const float* params,
                             size_t steps,
                             size_t n,
                             RecurrentTrace& trace,
                             const float* dOutput,
                             bool lastOnly) const
{
    const size_t hidden = m_hidden;
    const size_t gh = 3 * hidden;
    const float* whh = params + m_hhOffset;
    float* dh = trace.dh.data();
    for (size_t t = steps; t-- > 0;)
    {
        const float* ext =
            lastOnly ? (t + 1 == steps ? dOutput : nullptr) : dOutput + t * n * hidden;
        const float* a = trace.gates.data() + t * n * gh;
        float* d = trace.dA.data() + t * n * gh;
        float* dAh = trace.dAh.data() + t * n * gh;
        const float* hPrev = trace.h.data() + t * n * hidden;
        const float* ut = trace.u.data() + t * n * hidden;
        for (size_t i = 0; i < n; ++i)
        {
            const float* row = a + i * gh;
            float* drow = d + i * gh;
            float* dhrow = dAh + i * gh;
            for (size_t j = 0; j < hidden; ++j)
            {
                const size_t k = i * hidden + j;
                const float dhv = ext != nullptr ? dh[k] + ext[k] : dh[k];
                const float reset = row[j];
                const float update = row[hidden + j];
                const float cand = row[2 * hidden + j];
                const float dn = dhv * (1.0f - update) * (1.0f - cand * cand);
                const float dz = dhv * (hPrev[k] - cand) * update * (1.0f - update);
                const float dr = dn * ut[k] * reset * (1.0f - reset);
                drow[j] = dr;
                drow[hidden + j] = dz;
                drow[2 * hidden + j] = dn;
                dhrow[j] = dr;
                dhrow[hidden + j] = dz;
                dhrow[2 * hidden + j] = dn * reset;
                dh[k] = dhv * update;
            }
        }
        if (t > 0)
        {
            Gemm(Op::kNone, Op::kNone, n, hidden, gh, dAh, gh, whh, hidden, dh, hidden, true);
        }
    }
}

void
RecurrentLayer::AppendForwardFlops(size_t steps, std::vector<double>& flops) const
{
    const double h = m_hidden;
    const double perStep = static_cast<double>(steps);
    const size_t gates = Gates();
    for (size_t g = 0; g < gates; ++g)
    {
        flops.push_back(2.0 * h * m_inputs * perStep); // weight_ih: a multiply-add per weight
    }
    for (size_t g = 0; g < gates; ++g)
    {
        flops.push_back(2.0 * h * h * perStep); // weight_hh
    }
    // Each bias: its add, the add of the two products, the gate's nonlinearity. The state
    // update is charged to the last gate: LSTM c = f c + i g, tanh(c), h = o tanh(c); GRU
    // h = (1 - z) n + z h.
    for (size_t g = 0; g < gates; ++g)
    {
        double perUnit = 2.0 + kNonlinearityFlops;
        if (g + 1 == gates)
        {
            perUnit += m_cell == RecurrentCell::kLstm ? 4.0 + kNonlinearityFlops : 4.0;
        }
        flops.push_back(perUnit * h * perStep);
    }
    if (m_cell == RecurrentCell::kGru)
    {
        flops.push_back(2.0 * h * perStep); // bias_hn's add and the reset product
    }
}

} // namespace fedran
