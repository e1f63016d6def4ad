#include "fuzz-targets.h"

#include "compression/codec-spec.h"
#include "models/fl/update-frame.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace fedran::fuzz
{

namespace
{

/// Small tensors, so that per-tensor code paths and boundaries are exercised; the first is
/// long enough for qsgd's interleaved decoder (four buckets of at least 28 elements at once).
const TensorLayout&
Layout()
{
    static const TensorLayout layout({{"v", {160}}, {"w", {7, 5}}, {"b", {3}}});
    return layout;
}

/// One spec per codec and mode worth fuzzing. Specs whose codec is not registered (yet) are
/// skipped, so this list can name every codec the project plans.
const std::vector<nlohmann::json>&
Specs()
{
    static const std::vector<nlohmann::json> specs = [] {
        const std::vector<nlohmann::json> all = {
            {{"type", "none"}},
            {{"type", "fp16"}},
            {{"type", "top_k"}, {"ratio", 0.2}},
            {{"type", "top_k"}, {"ratio", 0.9}},
            {{"type", "random_k"}, {"ratio", 0.3}},
            {{"type", "threshold"}, {"threshold", 0.5}},
            {{"type", "quantization"}, {"bits", 3}, {"bucket", 4}},
            {{"type", "quantization"}, {"bits", 8}, {"stochastic", false}},
            {{"type", "qsgd"}, {"levels", 4}, {"bucket", 8}},
            {{"type", "qsgd"}, {"levels", 16}, {"bucket", 32}},
            {{"type", "qsgd"}, {"levels", 100}, {"bucket", 28}},
            {{"type", "sign"}},
            {{"type", "error_feedback"}, {"base", {{"type", "top_k"}, {"ratio", 0.2}}}},
            {{"type", "clipped"}, {"clip_value", 1.0}, {"base", {{"type", "fp16"}}}},
            {{"type", "dgc"}, {"mode", "round"}, {"ratio", 0.1}},
        };
        std::vector<nlohmann::json> usable;
        for (const auto& spec : all)
        {
            try
            {
                MakeCodec(spec, "fuzz");
                usable.push_back(spec);
            }
            catch (const CodecConfigError&)
            {
            }
        }
        return usable;
    }();
    return specs;
}

} // namespace

void
FuzzFrameStream(const uint8_t* data, size_t size)
{
    // The first byte chooses the piece size, so that headers and payloads split everywhere.
    if (size == 0)
    {
        return;
    }
    const size_t piece = 1 + data[0] % 64;
    FrameReassembler reassembler;
    try
    {
        for (size_t at = 1; at < size; at += piece)
        {
            const size_t n = std::min(piece, size - at);
            reassembler.Append(std::span<const uint8_t>(data + at, n));
            while (auto frame = reassembler.Next())
            {
                if (frame->payload.size() != frame->header.length)
                {
                    __builtin_trap(); // a frame must carry exactly what its header announces
                }
            }
        }
    }
    catch (const FrameError&)
    {
    }
    try
    {
        DecodeFrame(std::span<const uint8_t>(data, size));
    }
    catch (const FrameError&)
    {
    }
}

void
FuzzCodecDecode(const uint8_t* data, size_t size)
{
    const auto& specs = Specs();
    if (size == 0 || specs.empty())
    {
        return;
    }
    std::unique_ptr<Codec> codec = MakeCodec(specs[data[0] % specs.size()], "fuzz");
    std::vector<float> out(Layout().TotalSize());
    try
    {
        codec->Decode(Layout(), std::span<const uint8_t>(data + 1, size - 1), out);
    }
    catch (const DecodeError&)
    {
    }
}

std::vector<std::vector<uint8_t>>
CodecDecodeSeeds()
{
    std::vector<std::vector<uint8_t>> seeds;
    Rng rng(42);
    std::vector<float> update(Layout().TotalSize());
    for (auto& v : update)
    {
        v = static_cast<float>(rng.Normal());
    }
    const auto& specs = Specs();
    for (size_t i = 0; i < specs.size(); ++i)
    {
        std::vector<uint8_t> seed{static_cast<uint8_t>(i)};
        std::unique_ptr<Codec> codec = MakeCodec(specs[i], "fuzz");
        codec->BeginRound(1);
        codec->Encode(Layout(), update, rng, seed);
        seeds.push_back(std::move(seed));
    }
    return seeds;
}

namespace
{

const nlohmann::json kExchangeSpec = {{"type", "power_sgd"}, {"rank", 1}};

std::vector<float>
ExchangeUpdate()
{
    Rng rng(43);
    std::vector<float> update(Layout().TotalSize());
    for (auto& v : update)
    {
        v = static_cast<float>(rng.Normal());
    }
    return update;
}

/// A client and a server that have run a real round up to `stage`, and the messages so far.
struct ExchangeSession
{
    std::unique_ptr<Codec> client = MakeCodec(kExchangeSpec, "fuzz");
    std::unique_ptr<RoundExchange> server = client->MakeExchange(Layout(), 11);
    std::vector<uint8_t> state;
    std::vector<uint8_t> first;
    std::vector<uint8_t> message;
    std::vector<uint8_t> reply;

    /// 0: nothing; 1: state sent; 2: first payload combined; 3: message sent; 4: reply.
    explicit ExchangeSession(int stage)
    {
        Rng rng(3);
        server->BeginRound(1, state);
        if (stage >= 1)
        {
            client->BeginRound(1);
            client->AcceptRoundState(Layout(), state);
            client->Encode(Layout(), ExchangeUpdate(), rng, first);
        }
        if (stage >= 2)
        {
            server->AddFirst(first, 5.0);
        }
        if (stage >= 3)
        {
            server->CloseFirstPhase(message);
        }
        if (stage >= 4)
        {
            client->EncodeReply(Layout(), message, reply);
        }
    }
};

} // namespace

void
FuzzExchangeMessages(const uint8_t* data, size_t size)
{
    if (size == 0 || !MakeCodec(kExchangeSpec, "fuzz")->HasRoundExchange())
    {
        return;
    }
    const std::span<const uint8_t> input(data + 1, size - 1);
    std::vector<float> out(Layout().TotalSize());
    try
    {
        switch (data[0] % 4)
        {
            case 0: {
                ExchangeSession session(0);
                session.client->AcceptRoundState(Layout(), input);
                break;
            }
            case 1: {
                ExchangeSession session(0);
                session.server->AddFirst(input, 1.0);
                session.server->Result(out);
                break;
            }
            case 2: {
                ExchangeSession session(1);
                std::vector<uint8_t> reply;
                session.client->EncodeReply(Layout(), input, reply);
                break;
            }
            default: {
                ExchangeSession session(3);
                session.server->AddReply(input, 1.0);
                session.server->Result(out);
            }
        }
    }
    catch (const DecodeError&)
    {
    }
}

std::vector<std::vector<uint8_t>>
ExchangeMessageSeeds()
{
    ExchangeSession session(4);
    std::vector<std::vector<uint8_t>> seeds;
    const std::vector<uint8_t>* messages[] = {&session.state,
                                              &session.first,
                                              &session.message,
                                              &session.reply};
    for (uint8_t kind = 0; kind < 4; ++kind)
    {
        std::vector<uint8_t> seed{kind};
        seed.insert(seed.end(), messages[kind]->begin(), messages[kind]->end());
        seeds.push_back(std::move(seed));
    }
    return seeds;
}

std::vector<std::vector<uint8_t>>
FrameStreamSeeds()
{
    std::vector<uint8_t> stream{7}; // piece size 8
    for (uint8_t type : {1, 2, 3, 4, 5})
    {
        FrameHeader header;
        header.type = static_cast<FrameType>(type);
        header.round = type;
        header.client = 5;
        header.samples = type == 2 ? 100 : 0;
        const std::vector<uint8_t> payload(type * 13u, type);
        const std::vector<uint8_t> frame = EncodeFrame(header, payload);
        stream.insert(stream.end(), frame.begin(), frame.end());
    }
    return {stream};
}

} // namespace fedran::fuzz
