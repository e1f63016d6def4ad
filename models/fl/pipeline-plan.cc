#include "models/fl/pipeline-plan.h"

#include <algorithm>
#include <string>

namespace fedran
{

std::vector<PipelinePart>
PlanLayerwise(const TensorLayout& layout,
              std::span<const double> flops,
              double computeS,
              double lastStepS,
              uint64_t bucketBytes)
{
    const size_t n = layout.TensorCount();
    double total = 0.0;
    for (double f : flops)
    {
        total += f;
    }
    const double backwardS = std::min(computeS, lastStepS * 2.0 / 3.0);
    const double backwardStartS = computeS - backwardS;
    std::vector<PipelinePart> parts;
    PipelinePart open;
    uint64_t openBytes = 0;
    double done = 0.0; // FLOPs of the tensors whose gradients are ready
    for (size_t k = n; k-- > 0;)
    {
        done += k < flops.size() ? flops[k] : 0.0;
        // The first tensor's gradient is the last one the backward pass makes: exactly then.
        const double readyS =
            k == 0 || total <= 0.0 ? computeS : backwardStartS + backwardS * (done / total);
        open.firstTensor = static_cast<uint32_t>(k);
        ++open.tensorCount;
        open.readyS = readyS;
        openBytes += layout.Tensors()[k].Size() * sizeof(float);
        if (openBytes >= bucketBytes || k == 0)
        {
            parts.push_back(open);
            open = PipelinePart{};
            openBytes = 0;
        }
    }
    return parts;
}

TensorLayout
PartLayout(const TensorLayout& layout, const PipelinePart& part)
{
    const auto begin = layout.Tensors().begin() + part.firstTensor;
    return TensorLayout(std::vector<TensorSpec>(begin, begin + part.tensorCount));
}

std::vector<double>
PartSendTimes(std::span<const PipelinePart> parts, std::span<const double> encodeS)
{
    std::vector<double> sendAt;
    double freeS = 0.0;
    for (size_t k = 0; k < parts.size(); ++k)
    {
        freeS = std::max(freeS, parts[k].readyS) + encodeS[k];
        sendAt.push_back(freeS);
    }
    return sendAt;
}

namespace
{

void
PutU32(std::vector<uint8_t>& out, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
    {
        out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
}

uint32_t
GetU32(std::span<const uint8_t> in, size_t at)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
    {
        v |= uint32_t(in[at + i]) << (8 * i);
    }
    return v;
}

} // namespace

void
AppendPartPrefix(std::vector<uint8_t>& out,
                 uint32_t index,
                 uint32_t count,
                 const PipelinePart& part)
{
    PutU32(out, index);
    PutU32(out, count);
    PutU32(out, part.firstTensor);
    PutU32(out, part.tensorCount);
}

PartPrefix
ReadPartPrefix(std::span<const uint8_t> payload, const TensorLayout& layout)
{
    if (payload.size() < 16)
    {
        throw DecodeError("bucket frame shorter than its 16-byte prefix", payload.size());
    }
    PartPrefix prefix;
    prefix.index = GetU32(payload, 0);
    prefix.count = GetU32(payload, 4);
    prefix.part.firstTensor = GetU32(payload, 8);
    prefix.part.tensorCount = GetU32(payload, 12);
    if (prefix.count == 0 || prefix.index >= prefix.count || prefix.count > layout.TensorCount())
    {
        throw DecodeError("bucket " + std::to_string(prefix.index) + " of " +
                              std::to_string(prefix.count) + " for a model of " +
                              std::to_string(layout.TensorCount()) + " tensors",
                          0);
    }
    if (prefix.part.tensorCount == 0 ||
        uint64_t(prefix.part.firstTensor) + prefix.part.tensorCount > layout.TensorCount())
    {
        throw DecodeError("bucket tensors beyond the model's " +
                              std::to_string(layout.TensorCount()),
                          8);
    }
    return prefix;
}

} // namespace fedran
