#ifndef FEDRAN_MODELS_FL_LAYERWISE_ENCODER_H
#define FEDRAN_MODELS_FL_LAYERWISE_ENCODER_H

// training.pipelining "layerwise" on the client: the update cut into buckets of whole tensors,
// planned once for the client (PlanLayerwise), each encoded by its own encoder and sent as soon
// as its gradients are final and its encoding done. BucketAssembler puts them together again
// at the server.

#include "models/fl/codec-bank.h"
#include "models/fl/federated-task.h"
#include "models/fl/pipeline-plan.h"
#include "models/fl/update-frame.h"

#include <cstdint>
#include <span>
#include <vector>

namespace fedran
{

/// One bucket of a layerwise-pipelined update: its frame and when it is sent.
struct EncodedPart
{
    std::vector<uint8_t> frame;
    double sendAtS = 0.0; ///< from the start of local training: its encoding is done
};

class LayerwiseEncoder
{
  public:
    /// The buckets of `client`'s updates in `task`, trained at `samplesPerSecond`.
    LayerwiseEncoder(const FederatedTask& task, uint32_t client, double samplesPerSecond);

    /// The buckets, in layout order (planned on the first call from the round's compute time
    /// `computeS`, which is fixed for the client: its data, batch and speed set the last
    /// step's share).
    const std::vector<PipelinePart>& Parts(double computeS);

    /// Encodes `update` bucket by bucket with the bucket encoders of `codecs`, drawing from
    /// `rng`, into frames of `header` (a ClientUpdatePart header), in sending order.
    /// `encodeS` is their total encoding time on `device` (none without a cost profile).
    std::vector<EncodedPart> Encode(uint32_t round,
                                    std::span<const float> update,
                                    double computeS,
                                    const FrameHeader& header,
                                    const DeviceCompute& device,
                                    CodecBank& codecs,
                                    Rng& rng,
                                    double& encodeS);

  private:
    const FederatedTask& m_task;
    uint32_t m_client;
    double m_samplesPerSecond;
    std::vector<PipelinePart> m_parts;       ///< the buckets
    std::vector<TensorLayout> m_partLayouts; ///< their tensors
};

} // namespace fedran

#endif
