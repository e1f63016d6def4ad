#include "compression/internal/dgc-codec.h"

#include "compression/internal/codec-params.h"
#include "compression/internal/dgc-select.h"
#include "compression/internal/payload-header.h"
#include "compression/internal/sparse-coding.h"
#include "compression/internal/sum-of-squares.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fedran::internal
{

namespace
{

bool
IsRatio(double x)
{
    return x > 0.0 && x <= 1.0;
}

} // namespace

DgcCodec::DgcCodec(const CodecArgs& args, DgcConfig config)
    : RegisteredCodec(args)
    , m_config(std::move(config))
{
}

uint64_t
DgcCodec::SentCount(double density, uint64_t size)
{
    const auto k = static_cast<uint64_t>(std::floor(density * static_cast<double>(size)));
    return std::min(std::max<uint64_t>(k, 1), size);
}

void
DgcCodec::ResolveRatios(const TensorLayout& layout)
{
    if (m_ratiosSignature == layout.Signature() && m_tensorRatios.size() == layout.TensorCount())
    {
        return;
    }
    m_tensorRatios.assign(layout.TensorCount(), m_config.ratio);
    for (const auto& [name, ratio] : m_config.layerRatios)
    {
        const auto& tensors = layout.Tensors();
        const auto it = std::find_if(tensors.begin(), tensors.end(), [&](const TensorSpec& t) {
            return t.name == name;
        });
        if (it == tensors.end())
        {
            // Only now is the model known; a misspelt name must not silently fall back.
            throw CodecConfigError(m_config.layerRatiosPath + "." + name +
                                   ": the model has no tensor of that name");
        }
        m_tensorRatios[it - tensors.begin()] = ratio;
    }
    m_ratiosSignature = layout.Signature();
}

void
DgcCodec::Encode(const TensorLayout& layout,
                 std::span<const float> update,
                 Rng& rng,
                 std::vector<uint8_t>& out)
{
    CheckUpdateSize(layout, update.size(), Name());
    ResolveRatios(layout);
    if (m_momentum.size() != update.size())
    {
        m_momentum.assign(update.size(), 0.0f);
        m_accumulation.assign(update.size(), 0.0f);
    }

    ByteWriter writer(out);
    writer.Reserve(kPayloadHeaderSize);
    WritePayloadHeader(layout, writer);
    const float momentum = m_config.momentum;
    for (size_t t = 0; t < layout.TensorCount(); ++t)
    {
        const uint64_t offset = layout.Offset(t);
        const uint64_t size = layout.Tensors()[t].Size();
        const float* g = update.data() + offset;
        float* u = m_momentum.data() + offset;
        float* v = m_accumulation.data() + offset;

        float scale = 1.0f;
        if (m_config.clipNorm > 0.0f)
        {
            const double norm = std::sqrt(SumOfSquares(update.subspan(offset, size)));
            if (norm > m_config.clipNorm)
            {
                scale = static_cast<float>(m_config.clipNorm / norm);
            }
        }
        for (uint64_t i = 0; i < size; ++i)
        {
            u[i] = momentum * u[i] + scale * g[i];
            v[i] += u[i];
        }

        const double density = m_config.warmup.Density(m_tensorRatios[t], m_round);
        const std::span<const float> accumulated(v, size);
        SelectDgc(accumulated,
                  SentCount(density, size),
                  m_config.sampleRatio,
                  rng,
                  m_indices,
                  m_values);
        writer.Reserve(SparseBytes(m_indices, size));
        WriteSparse(writer, m_indices, m_values, size);
        for (const uint32_t i : m_indices)
        {
            u[i] = 0.0f;
            v[i] = 0.0f;
        }
    }
}

void
DgcCodec::Decode(const TensorLayout& layout, std::span<const uint8_t> payload, std::span<float> out)
{
    CheckUpdateSize(layout, out.size(), Name());
    ByteReader reader(payload);
    ReadPayloadHeader(layout, reader);
    for (size_t t = 0; t < layout.TensorCount(); ++t)
    {
        ReadSparse(reader, out.subspan(layout.Offset(t), layout.Tensors()[t].Size()));
    }
    reader.ExpectEnd();
}

std::unique_ptr<Codec>
MakeDgcCodec(CodecArgs& args)
{
    DgcConfig config;
    config.layerRatiosPath = args.PathOf("layer_ratios");
    auto number = [&](const std::string& key, double fallback, auto valid, const char* range) {
        const double value = TakeNumber(args, key).value_or(fallback);
        if (!valid(value))
        {
            args.Fail(key,
                      std::string("must be in ") + range + ", got " + nlohmann::json(value).dump());
        }
        return value;
    };
    config.ratio = number("ratio", config.ratio, IsRatio, "(0, 1]");
    config.momentum = static_cast<float>(number(
        "momentum",
        0.9,
        [](double x) { return x >= 0.0 && x < 1.0; },
        "[0, 1)"));
    config.clipNorm = static_cast<float>(number(
        "clip_norm",
        0.0,
        [](double x) {
            // A positive value that rounds to float 0 would silently turn clipping off.
            return x == 0.0 || (x <= std::numeric_limits<float>::max() && float(x) > 0.0f);
        },
        "[0, 3.4e38] (0 = off)"));
    config.sampleRatio = number("sample_ratio", config.sampleRatio, IsRatio, "(0, 1]");
    config.warmup = SparsityWarmup::FromArgs(args, kDgcDefaultWarmupRounds);
    if (const nlohmann::json* layers = args.Take("layer_ratios"))
    {
        if (!layers->is_object())
        {
            args.Fail("layer_ratios",
                      std::string("must be an object of tensor name -> ratio, got ") +
                          layers->type_name());
        }
        for (const auto& [name, value] : layers->items())
        {
            if (!value.is_number() || !IsRatio(value.get<double>()))
            {
                args.Fail("layer_ratios." + name, "must be a ratio in (0, 1], got " + value.dump());
            }
            config.layerRatios.emplace(name, value.get<double>());
        }
    }
    return std::make_unique<DgcCodec>(args, std::move(config));
}

} // namespace fedran::internal
