#include "compression/internal/wrapper-codec.h"

#include "compression/cost-model.h"

#include <stdexcept>
#include <string>

namespace fedran::internal
{

namespace
{

std::unique_ptr<Codec>
MakeBase(CodecArgs& args)
{
    const nlohmann::json* spec = args.Take("base");
    if (spec == nullptr)
    {
        args.Fail("base", "missing: a wrapper needs the codec spec it wraps");
    }
    return args.BuildChild(*spec, "/base", args.PathOf("base"));
}

} // namespace

WrapperCodec::WrapperCodec(CodecArgs& args)
    : RegisteredCodec(args)
    , m_base(MakeBase(args))
{
}

WrapperCodec::WrapperCodec(const WrapperCodec& other)
    : RegisteredCodec(other)
    , m_base(other.m_base->Clone())
{
    if (!m_base)
    {
        throw std::logic_error(std::string(Name()) + ": its base codec cannot be copied");
    }
}

void
WrapperCodec::Decode(const TensorLayout& layout,
                     std::span<const uint8_t> payload,
                     std::span<float> out)
{
    m_base->Decode(layout, payload, out);
}

void
WrapperCodec::BeginRound(uint32_t round)
{
    m_base->BeginRound(round);
}

void
WrapperCodec::SetEncodeThreads(unsigned threads)
{
    m_base->SetEncodeThreads(threads);
}

std::unique_ptr<Aggregator>
WrapperCodec::MakeAggregator() const
{
    return m_base->MakeAggregator();
}

bool
WrapperCodec::BringsAggregator() const
{
    return m_base->BringsAggregator();
}

bool
WrapperCodec::BiasedError() const
{
    return m_base->BiasedError();
}

bool
WrapperCodec::HasRoundExchange() const
{
    return m_base->HasRoundExchange();
}

std::unique_ptr<RoundExchange>
WrapperCodec::MakeExchange(const TensorLayout& layout, uint64_t seed) const
{
    return m_base->MakeExchange(layout, seed);
}

void
WrapperCodec::AcceptRoundState(const TensorLayout& layout, std::span<const uint8_t> state)
{
    m_base->AcceptRoundState(layout, state);
}

void
WrapperCodec::EncodeReply(const TensorLayout& layout,
                          std::span<const uint8_t> message,
                          std::vector<uint8_t>& out)
{
    m_base->EncodeReply(layout, message, out);
}

double
WrapperCodec::EncodeSeconds(const CostProfile& profile,
                            const TensorLayout& layout,
                            std::span<const uint8_t> payload) const
{
    return profile.Codec(Name()).encode.Seconds(CodecWork{layout.TotalSize(), 0, 0}) +
           m_base->EncodeSeconds(profile, layout, payload);
}

double
WrapperCodec::DecodeSeconds(const CostProfile& profile,
                            const TensorLayout& layout,
                            std::span<const uint8_t> payload) const
{
    return m_base->DecodeSeconds(profile, layout, payload);
}

double
WrapperCodec::ReplySeconds(const CostProfile& profile,
                           const TensorLayout& layout,
                           std::span<const uint8_t> reply) const
{
    return m_base->ReplySeconds(profile, layout, reply);
}

double
WrapperCodec::CloseSeconds(const CostProfile& profile, const TensorLayout& layout) const
{
    return m_base->CloseSeconds(profile, layout);
}

} // namespace fedran::internal
