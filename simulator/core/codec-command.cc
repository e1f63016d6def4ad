#include "simulator/core/codec-command.h"

#include "compression/codec-spec.h"
#include "simulator/core/cli-error.h"
#include "simulator/core/codec-round-trip.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace fedran
{

namespace
{

std::vector<uint8_t>
ReadBytes(const std::string& path, const char* option)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw BadInput(std::string(option) + ": cannot read '" + path + "'");
    }
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

/// Writes through a temporary file and a rename, so a failure never leaves half a file.
void
WriteBytes(const std::string& path, const void* data, size_t size, const char* option)
{
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
        if (!out)
        {
            throw BadInput(std::string(option) + ": cannot write '" + path + "'");
        }
    }
    std::filesystem::rename(tmp, path);
}

nlohmann::json
ParseSpec(const std::string& text)
{
    std::string json = text;
    if (!text.empty() && text[0] == '@')
    {
        const std::vector<uint8_t> bytes = ReadBytes(text.substr(1), "--spec");
        json.assign(bytes.begin(), bytes.end());
    }
    try
    {
        return nlohmann::json::parse(json);
    }
    catch (const nlohmann::json::parse_error& e)
    {
        throw BadInput(std::string("--spec: not valid JSON: ") + e.what());
    }
}

/// "N" or "R,C" (any number of dimensions, each >= 1).
std::vector<uint32_t>
ParseShape(const std::string& text)
{
    std::vector<uint32_t> shape;
    std::stringstream ss(text);
    std::string part;
    while (std::getline(ss, part, ','))
    {
        size_t used = 0;
        unsigned long long value = 0;
        try
        {
            value = std::stoull(part, &used);
        }
        catch (const std::exception&)
        {
            used = 0;
        }
        if (used != part.size() || part.empty() || value == 0 || value > UINT32_MAX)
        {
            throw BadInput("--shape: '" + text + "' is not a list of positive sizes like 100,50");
        }
        shape.push_back(static_cast<uint32_t>(value));
    }
    if (shape.empty())
    {
        throw BadInput("--shape: empty");
    }
    return shape;
}

TensorLayout
MakeLayout(const std::string& shapeText, std::optional<uint64_t> elements)
{
    std::vector<uint32_t> shape;
    if (!shapeText.empty())
    {
        shape = ParseShape(shapeText);
    }
    else if (elements && *elements > 0 && *elements <= UINT32_MAX)
    {
        shape = {static_cast<uint32_t>(*elements)};
    }
    else
    {
        throw BadInput(elements ? "--input: empty or too large for one tensor"
                                : "--shape: required with --decode (the payload does not say it)");
    }
    TensorLayout layout({{"input", shape}});
    if (elements && layout.TotalSize() != *elements)
    {
        throw BadInput("--shape: " + shapeText + " has " + std::to_string(layout.TotalSize()) +
                       " elements but --input holds " + std::to_string(*elements));
    }
    return layout;
}

} // namespace

int
RunCodecCommand(const CodecCommandOptions& options)
{
    const CodecSpec spec = CodecSpec::Parse(ParseSpec(options.spec), "--spec");
    CodecRoundTrip roundTrip(spec);
    Codec& codec = roundTrip.Encoder();

    if (options.decode)
    {
        if (!options.payload || !options.decoded)
        {
            throw BadInput("--decode needs --payload IN.bin and --decoded OUT.f32");
        }
        if (codec.HasRoundExchange())
        {
            throw BadInput("--decode: a " + spec.Type() +
                           " payload cannot be decoded alone: the server combines it with the "
                           "other clients' in a two-exchange round (run without --decode to see "
                           "one client's round trip)");
        }
        const TensorLayout layout = MakeLayout(options.shape, std::nullopt);
        const std::vector<uint8_t> payload = ReadBytes(*options.payload, "--payload");
        std::vector<float> out(layout.TotalSize());
        roundTrip.Decoder().Decode(layout, payload, out);
        WriteBytes(*options.decoded, out.data(), out.size() * sizeof(float), "--decoded");
        return 0;
    }

    if (codec.StepState() != nullptr)
    {
        // Decoding is the same in both modes; encoding in mode step needs the trainer's steps.
        throw BadInput("--spec.mode: dgc's \"step\" mode (the default) acts at every step of a "
                       "client's local training, and fedran codec encodes a finished update: "
                       "set \"mode\": \"round\"");
    }
    if (options.input.empty())
    {
        throw BadInput("--input IN.f32 is required (or use --decode)");
    }
    const std::vector<uint8_t> raw = ReadBytes(options.input, "--input");
    if (raw.size() % sizeof(float) != 0)
    {
        throw BadInput("--input: " + std::to_string(raw.size()) +
                       " bytes is not a whole number of float32 values");
    }
    std::vector<float> input(raw.size() / sizeof(float));
    std::memcpy(input.data(), raw.data(), raw.size());
    const TensorLayout layout = MakeLayout(options.shape, input.size());

    const RoundTrip trip = roundTrip.Run(layout, input, options.seed);
    const std::vector<uint8_t>& payload = trip.payload;
    const std::vector<float>& decoded = trip.decoded;

    double error = 0.0;
    double norm = 0.0;
    uint64_t nnz = 0;
    for (size_t i = 0; i < input.size(); ++i)
    {
        const double diff = double(decoded[i]) - double(input[i]);
        error += diff * diff;
        norm += double(input[i]) * double(input[i]);
        nnz += decoded[i] != 0.0f;
    }

    if (options.payload)
    {
        WriteBytes(*options.payload, payload.data(), payload.size(), "--payload");
    }
    if (options.decoded)
    {
        WriteBytes(*options.decoded, decoded.data(), decoded.size() * sizeof(float), "--decoded");
    }

    nlohmann::ordered_json report;
    report["codec"] = spec.Json();
    report["elements"] = input.size();
    report["raw_bytes"] = raw.size();
    report["payload_bytes"] = payload.size();
    report["ratio"] = payload.empty() ? 0.0 : double(raw.size()) / double(payload.size());
    report["encode_seconds"] = trip.encode.wall;
    report["decode_seconds"] = trip.decode.wall;
    report["encode_cpu_seconds"] = trip.encode.cpu;
    report["decode_cpu_seconds"] = trip.decode.cpu;
    report["l2_error"] = std::sqrt(error);
    report["relative_l2_error"] = norm > 0 ? std::sqrt(error / norm) : 0.0;
    report["nnz"] = nnz;
    if (codec.HasRoundExchange())
    {
        report["server_bytes"] = trip.serverBytes;
    }
    std::cout << report.dump() << std::endl;
    return 0;
}

} // namespace fedran
