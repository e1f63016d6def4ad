#include "simulator/core/codec-round-trip.h"

#include <chrono>

namespace fedran
{

namespace
{

double
SecondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

CodecRoundTrip::CodecRoundTrip(const CodecSpec& spec)
    : m_spec(spec)
{
}

CodecRoundTrip::~CodecRoundTrip() = default;

Codec&
CodecRoundTrip::Made(std::unique_ptr<Codec>& slot)
{
    if (!slot)
    {
        slot = MakeCodec(m_spec);
    }
    return *slot;
}

Codec&
CodecRoundTrip::Encoder()
{
    return Made(m_encoder);
}

Codec&
CodecRoundTrip::Decoder()
{
    return Made(m_decoder);
}

RoundTrip
CodecRoundTrip::Run(const TensorLayout& layout,
                    std::span<const float> input,
                    uint64_t seed,
                    bool decode)
{
    if (Encoder().HasRoundExchange())
    {
        return RunExchange(layout, input, seed, decode);
    }
    RoundTrip trip;
    Rng rng(seed);
    m_encoder->BeginRound(1);
    auto start = std::chrono::steady_clock::now();
    m_encoder->Encode(layout, input, rng, trip.payload);
    trip.encodeSeconds = SecondsSince(start);
    trip.firstBytes = trip.payload.size();
    if (decode)
    {
        trip.decoded.resize(input.size());
        start = std::chrono::steady_clock::now();
        Decoder().Decode(layout, trip.payload, trip.decoded);
        trip.decodeSeconds = SecondsSince(start);
    }
    return trip;
}

RoundTrip
CodecRoundTrip::RunExchange(const TensorLayout& layout,
                            std::span<const float> input,
                            uint64_t seed,
                            bool decode)
{
    RoundTrip trip;
    Codec& codec = Encoder();
    const std::unique_ptr<RoundExchange> server = codec.MakeExchange(layout, seed);
    std::vector<uint8_t> state;
    server->BeginRound(1, state);
    if (!state.empty())
    {
        // As a server sends it: only a round with a state to agree on (not a dense one).
        codec.AcceptRoundState(layout, state);
    }

    Rng rng(seed);
    codec.BeginRound(1);
    auto start = std::chrono::steady_clock::now();
    codec.Encode(layout, input, rng, trip.payload);
    trip.encodeSeconds = SecondsSince(start);
    trip.firstBytes = trip.payload.size();

    start = std::chrono::steady_clock::now();
    server->AddFirst(trip.payload, 1.0);
    std::vector<uint8_t> message;
    if (server->NeedsReplies())
    {
        // Otherwise a dense round (power_sgd's warm-up, or no matrix to factor): the first
        // payloads are the update.
        server->CloseFirstPhase(message);
        trip.decodeSeconds = SecondsSince(start);

        start = std::chrono::steady_clock::now();
        codec.EncodeReply(layout, message, trip.payload);
        trip.encodeSeconds += SecondsSince(start);
        start = std::chrono::steady_clock::now();
    }
    if (decode)
    {
        if (server->NeedsReplies())
        {
            server->AddReply(std::span<const uint8_t>(trip.payload).subspan(trip.firstBytes), 1.0);
        }
        trip.decoded.resize(input.size());
        server->Result(trip.decoded);
    }
    trip.decodeSeconds += SecondsSince(start);
    trip.serverBytes = state.size() + message.size();
    return trip;
}

} // namespace fedran
