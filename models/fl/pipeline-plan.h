#ifndef FEDRAN_MODELS_FL_PIPELINE_PLAN_H
#define FEDRAN_MODELS_FL_PIPELINE_PLAN_H

// training.pipelining "layerwise" without ns-3: when each tensor's gradient of the final local
// step is ready (wait-free backpropagation: the backward pass runs from the output layer to
// the input, each layer taking its share of the step's FLOPs), how ready tensors fill buckets,
// and when each bucket's encoding ends on the client's cores, i.e. when it is sent.

#include "compression/codec.h"

#include <cstdint>
#include <span>
#include <vector>

namespace fedran
{

/// One bucket: consecutive tensors [firstTensor, firstTensor + tensorCount) of the layout.
struct PipelinePart
{
    uint32_t firstTensor = 0;
    uint32_t tensorCount = 0;
    double readyS = 0.0; ///< from the start of local training: its last tensor's gradient is ready
};

/**
 * The buckets of a round, in the order they become ready (the output layer's first).
 * `flops` is the model's forward FLOPs per tensor (Model::ForwardFlopsPerTensor); training
 * takes `computeS`, of which the last step takes `lastStepS`, whose backward pass is 2/3
 * (backward costs twice the forward). Tensors join a bucket from the last one backwards until
 * it holds at least `bucketBytes` of float32 gradient; the rest form the last bucket, ready
 * when training ends.
 */
std::vector<PipelinePart> PlanLayerwise(const TensorLayout& layout,
                                        std::span<const double> flops,
                                        double computeS,
                                        double lastStepS,
                                        uint64_t bucketBytes);

/// The tensors of `part`, as a layout of their own (the codec sees only them).
TensorLayout PartLayout(const TensorLayout& layout, const PipelinePart& part);

/// Send instants (from the start of training): part k's encoding takes encodeS[k] and starts
/// when the part is ready and the previous part's encoding is done.
std::vector<double> PartSendTimes(std::span<const PipelinePart> parts,
                                  std::span<const double> encodeS);

/// A ClientUpdatePart frame's payload prefix (update-frame.h): part `index` of `count`.
void AppendPartPrefix(std::vector<uint8_t>& out,
                      uint32_t index,
                      uint32_t count,
                      const PipelinePart& part);

struct PartPrefix
{
    uint32_t index = 0;
    uint32_t count = 0;
    PipelinePart part; ///< readyS unset
};

/// Reads the prefix; throws DecodeError (offsets within the payload) if it is short or names
/// tensors beyond `layout`, or an index beyond the count.
PartPrefix ReadPartPrefix(std::span<const uint8_t> payload, const TensorLayout& layout);

} // namespace fedran

#endif
