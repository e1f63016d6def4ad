#ifndef FEDRAN_MODELS_LEARNING_IM2COL_H
#define FEDRAN_MODELS_LEARNING_IM2COL_H

// Unrolling image patches into matrix columns, so that a convolution over a whole minibatch
// is one matrix product: out (C_out x n*P) = weight (C_out x C_in*k*k) * cols (C_in*k*k x n*P),
// P being the output positions per image. The weight is PyTorch's {out, in, kh, kw} tensor
// read as a row-major C_out x (C_in*k*k) matrix, which is why the rows of cols are ordered
// (input channel, kernel row, kernel column).

#include <cstddef>
#include <cstdint>

namespace fedran
{

/// A square-kernel, stride-1 convolution with zero padding on a batch of images.
struct ConvGeometry
{
    uint32_t inChannels = 1;
    uint32_t height = 0; ///< input image height
    uint32_t width = 0;
    uint32_t kernel = 1;
    uint32_t padding = 0;

    uint32_t OutHeight() const
    {
        return height + 2 * padding - kernel + 1;
    }

    uint32_t OutWidth() const
    {
        return width + 2 * padding - kernel + 1;
    }

    /// Output positions per image.
    size_t OutPlane() const
    {
        return size_t{OutHeight()} * OutWidth();
    }

    /// Rows of the column matrix: input channels x kernel rows x kernel columns.
    size_t PatchSize() const
    {
        return size_t{inChannels} * kernel * kernel;
    }
};

/**
 * Writes cols (PatchSize() rows x n*OutPlane() columns, row-major, rows ldCols floats apart;
 * column s*OutPlane() + p is output position p of image s). Image s's channel c starts at
 * samples[s] + c * channelStride and is a height x width row-major plane. Taking one pointer per
 * image lets the first layer read minibatch rows straight from the dataset, and inner layers their
 * channel-major (C x n x H x W) activations, without a gathering copy.
 */
void Im2Col(const ConvGeometry& geometry,
            const float* const* samples,
            size_t n,
            size_t channelStride,
            float* cols,
            size_t ldCols);

/**
 * The adjoint of Im2Col for channel-major input: overwrites the n images at `image` (image s's
 * channel c is the height x width plane at image + c * channelStride + s * height * width)
 * with the sum, over every column entry, of the entry at the pixel it was copied from, in the
 * order of the column matrix's rows. Entries that came from the zero padding are dropped.
 */
void Col2Im(const ConvGeometry& geometry,
            const float* cols,
            size_t n,
            size_t channelStride,
            float* image);

} // namespace fedran

#endif
