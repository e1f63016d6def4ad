#include "models/fl/bucket-assembler.h"

#include "models/fl/pipeline-plan.h"
#include "models/fl/update-frame.h"

#include <string>

namespace fedran
{

BucketAssembler::BucketAssembler(CodecBank& codecs, const TensorLayout& layout)
    : m_codecs(codecs)
    , m_layout(layout)
{
}

BucketAssembler::Arrival
BucketAssembler::Add(uint32_t client,
                     uint32_t round,
                     std::span<const uint8_t> payload,
                     const ServerClock& clock)
{
    const PartPrefix prefix = ReadPartPrefix(payload, m_layout);
    Partial& partial = m_partials[client];
    if (partial.seen.empty())
    {
        partial.values.assign(m_layout.TotalSize(), 0.0f);
        partial.seen.assign(prefix.count, false);
    }
    if (prefix.count != partial.seen.size() || partial.seen[prefix.index])
    {
        throw DecodeError("bucket " + std::to_string(prefix.index) + " of " +
                              std::to_string(prefix.count) + " does not fit the update's " +
                              std::to_string(partial.seen.size()) + " buckets",
                          0);
    }
    const TensorLayout partLayout = PartLayout(m_layout, prefix.part);
    const auto body = payload.subspan(kPartPrefixSize);
    Codec& decoder = m_codecs.BucketDecoder(client, prefix.index, prefix.count, round);
    decoder.Decode(partLayout,
                   body,
                   std::span<float>(partial.values)
                       .subspan(m_layout.Offset(prefix.part.firstTensor), partLayout.TotalSize()));
    Arrival arrival;
    arrival.decodeS = clock.DecodeSeconds(decoder, partLayout, body, false);
    partial.decodeS += arrival.decodeS;
    partial.seen[prefix.index] = true;
    ++partial.received;
    partial.frameBytes += kFrameHeaderSize + payload.size();
    arrival.complete = partial.received == partial.seen.size();
    return arrival;
}

const BucketAssembler::Partial&
BucketAssembler::PartialOf(uint32_t client) const
{
    return m_partials.at(client);
}

const std::vector<float>&
BucketAssembler::Values(uint32_t client) const
{
    return PartialOf(client).values;
}

double
BucketAssembler::DecodeSeconds(uint32_t client) const
{
    return PartialOf(client).decodeS;
}

uint64_t
BucketAssembler::FrameBytes(uint32_t client) const
{
    return PartialOf(client).frameBytes;
}

void
BucketAssembler::Forget(uint32_t client)
{
    m_partials.erase(client);
}

void
BucketAssembler::Clear()
{
    m_partials.clear();
}

bool
BucketAssembler::BeforeLast(std::span<const uint8_t> payload) const
{
    try
    {
        const PartPrefix prefix = ReadPartPrefix(payload, m_layout);
        return prefix.index + 1 < prefix.count;
    }
    catch (const DecodeError&)
    {
        return false;
    }
}

} // namespace fedran
