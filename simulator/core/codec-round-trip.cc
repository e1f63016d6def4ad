#include "simulator/core/codec-round-trip.h"

#include <ctime>

namespace fedran
{

double
ThreadCpuSeconds()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

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
    // As a client hands its freshly trained update over (Codec::EncodeConsuming): the copy
    // stands for the update the client's training wrote, and is not timed.
    std::vector<float> update(input.begin(), input.end());
    trip.encode.Add(
        [&] { m_encoder->EncodeConsuming(layout, std::move(update), rng, trip.payload); });
    trip.firstBytes = trip.payload.size();
    if (decode)
    {
        trip.decoded.resize(input.size());
        Codec& decoder = Decoder();
        trip.decode.Add([&] { decoder.Decode(layout, trip.payload, trip.decoded); });
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
    trip.encode.Add([&] { codec.Encode(layout, input, rng, trip.payload); });
    trip.firstBytes = trip.payload.size();

    std::vector<uint8_t> message;
    // Without replies a dense round (power_sgd's warm-up, or no matrix to factor): the first
    // payloads are the update.
    bool replies = false;
    trip.decode.Add([&] {
        server->AddFirst(trip.payload, 1.0);
        replies = server->NeedsReplies();
        if (replies)
        {
            server->CloseFirstPhase(message);
        }
    });
    if (replies)
    {
        trip.encode.Add([&] { codec.EncodeReply(layout, message, trip.payload); });
    }
    if (decode)
    {
        trip.decoded.resize(input.size());
        trip.decode.Add([&] {
            if (replies)
            {
                server->AddReply(std::span<const uint8_t>(trip.payload).subspan(trip.firstBytes),
                                 1.0);
            }
            server->Result(trip.decoded);
        });
    }
    trip.serverBytes = state.size() + message.size();
    return trip;
}

} // namespace fedran
