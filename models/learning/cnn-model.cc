#include "models/learning/cnn-model.h"

#include "models/learning/cross-entropy.h"
#include "models/learning/dataset.h"
#include "models/learning/direct-conv.h"
#include "models/learning/gemm.h"
#include "models/learning/model-checks.h"
#include "models/learning/scratch.h"
#include "models/learning/sparse-conv.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace fedran
{

namespace
{

/**
 * LossAndGradient and Evaluate process at most this many images at a time. A convolution
 * keeps about 60,000 floats of activations per image (default shape), so this bounds the
 * per-thread scratch at a few MB whatever the batch size, and keeps a chunk's column matrix
 * near the cache. Batches up to this size are computed in one piece.
 */
constexpr size_t kChunkImages = 32;

/// Tensor indices in the layout.
enum Tensor : size_t
{
    kConv1Weight = 0,
    kConv1Bias,
    kConv2Weight,
    kConv2Bias,
    kHead, ///< fc1.weight: the dense head's slice starts here
};

/**
 * Per-thread activations of the chunk being processed. Conv outputs (out1, out2) are
 * overwritten by their gradients in Backward.
 */
struct CnnScratch
{
    std::vector<const float*> images; ///< the chunk's input images
    std::vector<const float*> inner;  ///< per image, its pool1 activations (conv2's input)
    std::vector<uint8_t> labels;
    std::vector<float> out1, pool1;
    std::vector<float> out1GradT; ///< dLoss/dout1 position-major
    std::vector<float> out2, pool2;
    std::vector<uint8_t> argmax1, argmax2;
    std::vector<float> flat;     ///< n x (c2 h2 w2): pool2 image by image, the head's input
    std::vector<float> flatGrad; ///< dLoss/dflat
    std::vector<float> poolGrad; ///< dLoss/dpool2, then dLoss/dpool1
    SparseOutputGrad out2Grad;   ///< dLoss/dout2: at most one nonzero per pool2 window
    DirectConvScratch direct1;   ///< conv1's: keeps the padded images for its weight gradient
    DirectConvScratch direct2;
    SparseConvScratch sparseConv;
};

thread_local CnnScratch t_cnn;

PoolShape
ForBatch(PoolShape shape, size_t n)
{
    shape.n = n;
    return shape;
}

/// Kaiming-uniform (ReLU gain) weights of a convolution; zero bias.
void
InitConv(float* weight, float* bias, size_t outChannels, size_t fanIn, Rng& rng)
{
    const double bound = std::sqrt(6.0 / static_cast<double>(fanIn));
    for (size_t k = 0; k < outChannels * fanIn; ++k)
    {
        weight[k] = static_cast<float>(bound * (2.0 * rng.Uniform() - 1.0));
    }
    std::fill(bias, bias + outChannels, 0.0f);
}

} // namespace

CnnModel::CnnModel(const CnnShape& shape)
    : m_shape(shape)
    , m_geometry(ResolveGeometry(shape))
    , m_head(m_geometry.FlatWidth(), {shape.hidden, shape.classes})
{
    const uint32_t k = shape.kernel;
    std::vector<TensorSpec> tensors{
        {"conv1.weight", {shape.channels[0], shape.imageChannels, k, k}},
        {"conv1.bias", {shape.channels[0]}},
        {"conv2.weight", {shape.channels[1], shape.channels[0], k, k}},
        {"conv2.bias", {shape.channels[1]}},
    };
    m_head.AppendTensors(tensors);
    m_layout = TensorLayout(std::move(tensors));
}

std::vector<double>
CnnModel::ForwardFlopsPerTensor() const
{
    std::vector<double> flops = Model::ForwardFlopsPerTensor();
    // conv1.weight, conv1.bias, conv2.weight, conv2.bias come first (cnn-model.h).
    const double plane1 = double(m_geometry.conv1.OutPlane());
    const double plane2 = double(m_geometry.conv2.OutPlane());
    flops[0] *= plane1;
    flops[1] *= plane1;
    flops[2] *= plane2;
    flops[3] *= plane2;
    return flops;
}

const TensorLayout&
CnnModel::Layout() const
{
    return m_layout;
}

void
CnnModel::InitParams(std::span<float> params, Rng& rng) const
{
    CheckInitSize("CnnModel", m_layout, params);
    float* p = params.data();
    InitConv(p + m_layout.Offset(kConv1Weight),
             p + m_layout.Offset(kConv1Bias),
             m_shape.channels[0],
             m_geometry.conv1.PatchSize(),
             rng);
    InitConv(p + m_layout.Offset(kConv2Weight),
             p + m_layout.Offset(kConv2Bias),
             m_shape.channels[1],
             m_geometry.conv2.PatchSize(),
             rng);
    m_head.InitParams(p + m_layout.Offset(kHead), rng);
}

float*
CnnModel::Forward(const float* params, const float* const* images, size_t n) const
{
    CnnScratch& s = t_cnn;
    const size_t c1 = m_shape.channels[0];
    const size_t c2 = m_shape.channels[1];

    // conv1 -> pool1 (bias and ReLU fused into the pooling).
    GrowScratch(s.out1, c1 * n * m_geometry.conv1.OutPlane());
    const size_t imagePlane = size_t{m_shape.imageHeight} * m_shape.imageWidth;
    DirectConvForward(m_geometry.conv1,
                      images,
                      n,
                      imagePlane,
                      params + m_layout.Offset(kConv1Weight),
                      c1,
                      s.out1.data(),
                      s.direct1);
    const PoolShape pool1 = ForBatch(m_geometry.pool1, n);
    GrowScratch(s.pool1, pool1.OutSize());
    GrowScratch(s.argmax1, pool1.OutSize());
    PoolBiasReluForward(pool1,
                        s.out1.data(),
                        params + m_layout.Offset(kConv1Bias),
                        s.pool1.data(),
                        s.argmax1.data());

    // conv2 -> pool2, reading pool1's channel-major activations image by image.
    const size_t plane1 = m_geometry.conv2.height * size_t{m_geometry.conv2.width};
    GrowScratch(s.inner, n);
    for (size_t i = 0; i < n; ++i)
    {
        s.inner[i] = s.pool1.data() + i * plane1;
    }
    GrowScratch(s.out2, c2 * n * m_geometry.conv2.OutPlane());
    DirectConvForward(m_geometry.conv2,
                      s.inner.data(),
                      n,
                      n * plane1,
                      params + m_layout.Offset(kConv2Weight),
                      c2,
                      s.out2.data(),
                      s.direct2);
    const PoolShape pool2 = ForBatch(m_geometry.pool2, n);
    GrowScratch(s.pool2, pool2.OutSize());
    GrowScratch(s.argmax2, pool2.OutSize());
    PoolBiasReluForward(pool2,
                        s.out2.data(),
                        params + m_layout.Offset(kConv2Bias),
                        s.pool2.data(),
                        s.argmax2.data());

    // Flatten channel-major per image (c, y, x), as PyTorch's flatten of an NCHW tensor.
    const size_t plane2 = size_t{pool2.OutHeight()} * pool2.OutWidth();
    const size_t flatWidth = c2 * plane2;
    GrowScratch(s.flat, n * flatWidth);
    for (size_t c = 0; c < c2; ++c)
    {
        for (size_t i = 0; i < n; ++i)
        {
            std::copy_n(s.pool2.data() + (c * n + i) * plane2,
                        plane2,
                        s.flat.data() + i * flatWidth + c * plane2);
        }
    }
    return m_head.Forward(params + m_layout.Offset(kHead), s.flat.data(), n);
}

void
CnnModel::Backward(const float* params, size_t n, float* grad, bool accumulate) const
{
    CnnScratch& s = t_cnn;
    const size_t c1 = m_shape.channels[0];
    const size_t c2 = m_shape.channels[1];
    const PoolShape pool1 = ForBatch(m_geometry.pool1, n);
    const PoolShape pool2 = ForBatch(m_geometry.pool2, n);
    const size_t plane2 = size_t{pool2.OutHeight()} * pool2.OutWidth();
    const size_t flatWidth = c2 * plane2;

    GrowScratch(s.flatGrad, n * flatWidth);
    m_head.Backward(params + m_layout.Offset(kHead),
                    s.flat.data(),
                    n,
                    grad + m_layout.Offset(kHead),
                    s.flatGrad.data(),
                    accumulate);
    if (!accumulate)
    {
        std::fill_n(grad + m_layout.Offset(kConv1Bias), c1, 0.0f);
        std::fill_n(grad + m_layout.Offset(kConv2Bias), c2, 0.0f);
    }

    // Unflatten into channel-major dLoss/dpool2, then through pool2, its ReLU and bias.
    GrowScratch(s.poolGrad, std::max(pool1.OutSize(), pool2.OutSize()));
    for (size_t c = 0; c < c2; ++c)
    {
        for (size_t i = 0; i < n; ++i)
        {
            std::copy_n(s.flatGrad.data() + i * flatWidth + c * plane2,
                        plane2,
                        s.poolGrad.data() + (c * n + i) * plane2);
        }
    }
    PoolBiasReluBackwardSparse(pool2,
                               s.poolGrad.data(),
                               s.pool2.data(),
                               s.argmax2.data(),
                               s.out2Grad,
                               grad + m_layout.Offset(kConv2Bias));

    // conv2's weight gradient and dLoss/dpool1 (over dLoss/dpool2, consumed above), from the
    // pooled gradient's nonzeros only (sparse-conv.h: the bits of the dense products).
    const size_t plane1 = m_geometry.conv2.height * size_t{m_geometry.conv2.width};
    SparseConvBackward(m_geometry.conv2,
                       s.pool1.data(),
                       n * plane1,
                       params + m_layout.Offset(kConv2Weight),
                       s.out2Grad,
                       grad + m_layout.Offset(kConv2Weight),
                       accumulate,
                       s.poolGrad.data(),
                       s.sparseConv);

    // Through pool1, position-major, then conv1's weights over the padded images its forward
    // pass kept (the input image needs no gradient).
    const size_t lanes1 = DirectConvChannelLanes(c1);
    GrowScratch(s.out1GradT, n * m_geometry.conv1.OutPlane() * lanes1);
    PoolBiasReluBackwardChannelsLast(pool1,
                                     s.poolGrad.data(),
                                     s.pool1.data(),
                                     s.argmax1.data(),
                                     s.out1GradT.data(),
                                     lanes1,
                                     grad + m_layout.Offset(kConv1Bias));
    DirectConvWeightGrad(m_geometry.conv1,
                         n,
                         c1,
                         s.out1GradT.data(),
                         grad + m_layout.Offset(kConv1Weight),
                         accumulate,
                         s.direct1);
}

double
CnnModel::LossAndGradient(std::span<const float> params,
                          const Dataset& data,
                          std::span<const uint32_t> rows,
                          std::span<float> grad) const
{
    CheckParamsAndData("CnnModel", m_layout, m_shape.Features(), params, data);
    CheckGradientSize("CnnModel", params, grad);
    const size_t n = rows.size();
    if (n == 0)
    {
        std::fill(grad.begin(), grad.end(), 0.0f);
        return 0.0;
    }
    for (uint32_t row : rows)
    {
        CheckRow("CnnModel", data, row, m_shape.classes);
    }

    CnnScratch& s = t_cnn;
    const float scale = 1.0f / static_cast<float>(n);
    double loss = 0.0;
    for (size_t start = 0; start < n; start += kChunkImages)
    {
        const size_t count = std::min(kChunkImages, n - start);
        GrowScratch(s.images, count);
        GrowScratch(s.labels, count);
        for (size_t i = 0; i < count; ++i)
        {
            s.images[i] = data.Row(rows[start + i]);
            s.labels[i] = data.y[rows[start + i]];
        }
        float* logits = Forward(params.data(), s.images.data(), count);
        loss += SoftmaxCrossEntropyBackward(logits, count, m_shape.classes, s.labels.data(), scale);
        Backward(params.data(), count, grad.data(), start > 0);
    }
    return loss / static_cast<double>(n);
}

Evaluation
CnnModel::Evaluate(std::span<const float> params, const Dataset& data) const
{
    CheckParamsAndData("CnnModel", m_layout, m_shape.Features(), params, data);
    const size_t total = data.Size();
    if (total == 0)
    {
        return {};
    }
    CnnScratch& s = t_cnn;
    double lossSum = 0.0;
    size_t correct = 0;
    for (size_t start = 0; start < total; start += kChunkImages)
    {
        const size_t count = std::min(kChunkImages, total - start);
        CheckLabels("CnnModel", data, start, count, m_shape.classes);
        GrowScratch(s.images, count);
        for (size_t i = 0; i < count; ++i)
        {
            s.images[i] = data.Row(start + i);
        }
        float* logits = Forward(params.data(), s.images.data(), count);
        lossSum += SoftmaxCrossEntropyEvaluate(logits,
                                               count,
                                               m_shape.classes,
                                               data.y.data() + start,
                                               correct);
    }
    Evaluation result;
    result.loss = lossSum / static_cast<double>(total);
    result.accuracy = static_cast<double>(correct) / static_cast<double>(total);
    return result;
}

} // namespace fedran
