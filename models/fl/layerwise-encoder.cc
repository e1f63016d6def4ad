#include "models/fl/layerwise-encoder.h"

#include "models/learning/local-trainer.h"

namespace fedran
{

LayerwiseEncoder::LayerwiseEncoder(const FederatedTask& task,
                                   uint32_t client,
                                   double samplesPerSecond)
    : m_task(task)
    , m_client(client)
    , m_samplesPerSecond(samplesPerSecond)
{
}

const std::vector<PipelinePart>&
LayerwiseEncoder::Parts(double computeS)
{
    if (m_parts.empty())
    {
        const TrainingConfig& training = m_task.training;
        const uint32_t examples = m_task.Examples(m_client);
        const double lastStepS = double(LastStepExamples(training, examples)) / m_samplesPerSecond;
        const std::vector<double> flops = m_task.model->ForwardFlopsPerTensor();
        m_parts = PlanLayerwise(m_task.model->Layout(),
                                flops,
                                computeS,
                                lastStepS,
                                training.pipelining.bucketBytes);
        for (const PipelinePart& part : m_parts)
        {
            m_partLayouts.push_back(PartLayout(m_task.model->Layout(), part));
        }
    }
    return m_parts;
}

std::vector<EncodedPart>
LayerwiseEncoder::Encode(uint32_t round,
                         std::span<const float> update,
                         double computeS,
                         const FrameHeader& header,
                         const DeviceCompute& device,
                         CodecBank& codecs,
                         Rng& rng,
                         double& encodeS)
{
    const TensorLayout& layout = m_task.model->Layout();
    const std::vector<PipelinePart>& parts = Parts(computeS);
    const auto count = static_cast<uint32_t>(parts.size());
    std::vector<std::vector<uint8_t>> payloads(parts.size());
    std::vector<double> partEncodeS(parts.size(), 0.0);
    // Encoded in layout order, as the whole update is without pipelining, so that a codec
    // drawing random numbers tensor by tensor draws the same ones.
    for (size_t k = parts.size(); k-- > 0;)
    {
        const TensorLayout& partLayout = m_partLayouts[k];
        // One encoder per bucket: a codec's state (error feedback's residual) is per tensor,
        // and each bucket holds the same tensors every round.
        Codec& encoder = codecs.BucketEncoder(uint32_t(k), count);
        encoder.BeginRound(round);
        AppendPartPrefix(payloads[k], uint32_t(k), count, parts[k]);
        std::vector<uint8_t> body;
        encoder.Encode(partLayout,
                       update.subspan(layout.Offset(parts[k].firstTensor), partLayout.TotalSize()),
                       rng,
                       body);
        if (device.profile)
        {
            partEncodeS[k] = encoder.EncodeSeconds(*device.profile, partLayout, body) /
                             device.speed / double(device.cores);
        }
        payloads[k].insert(payloads[k].end(), body.begin(), body.end());
    }
    const std::vector<double> sendAt = PartSendTimes(parts, partEncodeS);
    std::vector<EncodedPart> out;
    encodeS = 0.0;
    for (size_t k = 0; k < parts.size(); ++k)
    {
        EncodedPart part;
        part.frame = EncodeFrame(header, payloads[k]);
        part.sendAtS = sendAt[k];
        encodeS += partEncodeS[k];
        out.push_back(std::move(part));
    }
    return out;
}

} // namespace fedran
