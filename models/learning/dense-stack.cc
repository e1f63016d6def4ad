#include "models/learning/dense-stack.h"

#include "models/learning/gemm.h"
#include "models/learning/scratch.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace fedran
{

namespace
{

/**
 * Per-thread activations: act[l] holds layer l's output for the current batch (the logits
 * for the last layer), and during Backward() its gradient. Buffers only grow, so after the
 * first batch of a given size a step allocates nothing.
 */
struct DenseScratch
{
    std::vector<std::vector<float>> act;
    std::vector<float> delta; ///< dLoss/d(a_{l-1}) before the ReLU mask is applied
    std::vector<float> outT;  ///< a layer's output transposed, as the product writes it
};

thread_local DenseScratch t_dense;

/**
 * a[k] = a[k] > 0 ? d[k] : 0. Both operands are loaded unconditionally so that the compiler
 * emits a vectorised select: a ReLU's sign pattern is close to a coin flip per unit, and the
 * branchy form mispredicted often enough to cost 10% of an MLP training step.
 */
void
MaskByRelu(float* __restrict a, const float* __restrict d, size_t count)
{
    for (size_t k = 0; k < count; ++k)
    {
        const float value = d[k];
        a[k] = a[k] > 0.0f ? value : 0.0f;
    }
}

} // namespace

DenseStack::DenseStack(uint32_t inputs, std::vector<uint32_t> widths)
    : m_inputs(inputs)
    , m_widths(std::move(widths))
{
    for (size_t l = 0; l < m_widths.size(); ++l)
    {
        m_weightOffsets.push_back(m_paramCount);
        m_paramCount += size_t{m_widths[l]} * InputsOf(l);
        m_biasOffsets.push_back(m_paramCount);
        m_paramCount += m_widths[l];
    }
}

void
DenseStack::AppendTensors(std::vector<TensorSpec>& tensors) const
{
    for (size_t l = 0; l < m_widths.size(); ++l)
    {
        const std::string name = "fc" + std::to_string(l + 1);
        tensors.push_back({name + ".weight", {m_widths[l], InputsOf(l)}});
        tensors.push_back({name + ".bias", {m_widths[l]}});
    }
}

void
DenseStack::InitParams(float* params, Rng& rng) const
{
    for (size_t l = 0; l < m_widths.size(); ++l)
    {
        const double gain = l + 1 < m_widths.size() ? 2.0 : 1.0;
        const double bound = std::sqrt(3.0 * gain / InputsOf(l));
        float* w = params + m_weightOffsets[l];
        const size_t count = size_t{m_widths[l]} * InputsOf(l);
        for (size_t k = 0; k < count; ++k)
        {
            w[k] = static_cast<float>(bound * (2.0 * rng.Uniform() - 1.0));
        }
        std::fill(params + m_biasOffsets[l], params + m_biasOffsets[l] + m_widths[l], 0.0f);
    }
}

float*
DenseStack::Forward(const float* params, const float* input, size_t n) const
{
    DenseScratch& scratch = t_dense;
    if (scratch.act.size() < m_widths.size())
    {
        scratch.act.resize(m_widths.size());
    }
    const float* in = input;
    float* out = nullptr;
    for (size_t l = 0; l < m_widths.size(); ++l)
    {
        const size_t width = m_widths[l];
        const size_t fanIn = InputsOf(l);
        out = GrowScratch(scratch.act[l], n * width);
        // out^T (width x n) = W in^T, then transposed: the product packs the few input rows
        // instead of the whole weight matrix (out = in W^T would pack W^T). Each element is
        // the same chain of fused multiply-adds over the inputs in order either way.
        float* outT = GrowScratch(scratch.outT, width * n);
        Gemm(Op::kNone,
             Op::kTranspose,
             width,
             n,
             fanIn,
             params + m_weightOffsets[l],
             fanIn,
             in,
             fanIn,
             outT,
             n);
        for (size_t i = 0; i < n; ++i)
        {
            for (size_t j = 0; j < width; ++j)
            {
                out[i * width + j] = outT[j * n + i];
            }
        }
        const float* bias = params + m_biasOffsets[l];
        const bool relu = l + 1 < m_widths.size();
        // One pass adds the bias and applies the ReLU while the row is in cache.
        for (size_t i = 0; i < n; ++i)
        {
            float* row = out + i * width;
            if (relu)
            {
                for (size_t j = 0; j < width; ++j)
                {
                    row[j] = std::max(row[j] + bias[j], 0.0f);
                }
            }
            else
            {
                for (size_t j = 0; j < width; ++j)
                {
                    row[j] += bias[j];
                }
            }
        }
        in = out;
    }
    return out;
}

void
DenseStack::Backward(const float* params,
                     const float* input,
                     size_t n,
                     float* grad,
                     float* inputGrad,
                     bool accumulate) const
{
    DenseScratch& scratch = t_dense;
    for (size_t l = m_widths.size(); l-- > 0;)
    {
        const size_t width = m_widths[l];
        const size_t fanIn = InputsOf(l);
        const float* g = scratch.act[l].data(); // dLoss/dz_l, n x width
        const float* a = l == 0 ? input : scratch.act[l - 1].data();
        const float* w = params + m_weightOffsets[l];

        // dW_l = G_l^T a_{l-1}; db_l = column sums of G_l.
        Gemm(Op::kTranspose,
             Op::kNone,
             width,
             fanIn,
             n,
             g,
             width,
             a,
             fanIn,
             grad + m_weightOffsets[l],
             fanIn,
             accumulate);
        float* gb = grad + m_biasOffsets[l];
        if (!accumulate)
        {
            std::fill(gb, gb + width, 0.0f);
        }
        for (size_t i = 0; i < n; ++i)
        {
            const float* row = g + i * width;
            for (size_t j = 0; j < width; ++j)
            {
                gb[j] += row[j];
            }
        }

        if (l > 0)
        {
            // dLoss/da_{l-1} = G_l W_l, then through the ReLU: a_{l-1} > 0 exactly where
            // z_{l-1} > 0. The activation buffer is no longer needed and becomes G_{l-1}.
            float* delta = GrowScratch(scratch.delta, n * fanIn);
            Gemm(Op::kNone, Op::kNone, n, fanIn, width, g, width, w, fanIn, delta, fanIn);
            MaskByRelu(scratch.act[l - 1].data(), delta, n * fanIn);
        }
        else if (inputGrad != nullptr)
        {
            Gemm(Op::kNone, Op::kNone, n, fanIn, width, g, width, w, fanIn, inputGrad, fanIn);
        }
    }
}

} // namespace fedran
