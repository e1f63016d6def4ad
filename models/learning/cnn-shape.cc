#include "models/learning/cnn-shape.h"

#include <stdexcept>
#include <string>

namespace fedran
{

namespace
{

/// Whether the convolution's output has at least 2x2 positions, one pooled value.
bool
Fits(const ConvGeometry& g)
{
    return g.height + 2 * g.padding >= g.kernel + 1 && g.width + 2 * g.padding >= g.kernel + 1;
}

PoolShape
PoolAfter(const ConvGeometry& conv, uint32_t channels)
{
    PoolShape pool;
    pool.channels = channels;
    pool.n = 1;
    pool.height = conv.OutHeight();
    pool.width = conv.OutWidth();
    return pool;
}

} // namespace

CnnGeometry
ResolveGeometry(const CnnShape& s)
{
    if (s.imageChannels == 0 || s.imageHeight == 0 || s.imageWidth == 0 || s.kernel == 0 ||
        s.channels[0] == 0 || s.channels[1] == 0 || s.hidden == 0 || s.classes == 0)
    {
        throw std::invalid_argument("CnnModel: image, kernel, channel, hidden and class sizes "
                                    "must be > 0");
    }
    const std::string tooSmall = "CnnModel: a " + std::to_string(s.imageHeight) + "x" +
                                 std::to_string(s.imageWidth) + " image is too small for two " +
                                 std::to_string(s.kernel) + "x" + std::to_string(s.kernel) +
                                 " convolutions with 2x2 pooling";
    CnnGeometry g;
    g.conv1.inChannels = s.imageChannels;
    g.conv1.height = s.imageHeight;
    g.conv1.width = s.imageWidth;
    g.conv1.kernel = s.kernel;
    g.conv1.padding = s.padding[0];
    if (!Fits(g.conv1))
    {
        throw std::invalid_argument(tooSmall);
    }
    g.pool1 = PoolAfter(g.conv1, s.channels[0]);

    g.conv2.inChannels = s.channels[0];
    g.conv2.height = g.pool1.OutHeight();
    g.conv2.width = g.pool1.OutWidth();
    g.conv2.kernel = s.kernel;
    g.conv2.padding = s.padding[1];
    if (!Fits(g.conv2))
    {
        throw std::invalid_argument(tooSmall);
    }
    g.pool2 = PoolAfter(g.conv2, s.channels[1]);
    return g;
}

} // namespace fedran
