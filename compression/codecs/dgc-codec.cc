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

/// The per-tensor clipping factor min(1, clip_norm / ||g||_2) (1 without clipping).
float
ClipScale(std::span<const float> g, float clipNorm)
{
    if (clipNorm > 0.0f)
    {
        const double norm = std::sqrt(SumOfSquares(g));
        if (norm > clipNorm)
        {
            return static_cast<float>(clipNorm / norm);
        }
    }
    return 1.0f;
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
DgcCodec::ResetStateFor(size_t size)
{
    if (m_momentum.size() != size || m_accumulationInMomentum)
    {
        m_momentum.assign(size, 0.0f);
        m_accumulation.assign(size, 0.0f);
        m_accumulationInMomentum = false;
    }
}

MomentumStep::Before
DgcCodec::PrepareRoundState(size_t size)
{
    if (m_momentum.size() != size)
    {
        // Unset memory that stands for zeros (large-buffer.h).
        m_momentum.resize(size);
        StartFromZero();
        return MomentumStep::Before::Zero;
    }
    if (m_accumulationInMomentum)
    {
        m_accumulation.resize(size); // unset: written before it is read
        m_accumulationInMomentum = false;
        return MomentumStep::Before::VIsU;
    }
    return MomentumStep::Before::Separate;
}

void
DgcCodec::StartFromZero()
{
    // v = 0 + u is u bit for bit (MomentumStep::Before::Zero).
    m_accumulation.Release();
    m_accumulationInMomentum = true;
}

void
DgcCodec::BeginLocalTraining(const TensorLayout& layout, double lr)
{
    ResolveRatios(layout);
    ResetStateFor(layout.TotalSize());
    if (m_stepLayout.Signature() != layout.Signature() ||
        m_stepLayout.TotalSize() != layout.TotalSize())
    {
        m_stepLayout = layout;
    }
    m_lr = static_cast<float>(lr);
}

void
DgcCodec::LocalStep(std::span<float> gradient)
{
    const TensorLayout& layout = m_stepLayout;
    CheckUpdateSize(layout, gradient.size(), Name());
    const float momentum = m_config.momentum;
    for (size_t t = 0; t < layout.TensorCount(); ++t)
    {
        const uint64_t offset = layout.Offset(t);
        const uint64_t size = layout.Tensors()[t].Size();
        float* g = gradient.data() + offset;
        float* u = m_momentum.data() + offset;
        float* v = m_accumulation.data() + offset;
        const float scale = ClipScale(gradient.subspan(offset, size), m_config.clipNorm);
        for (uint64_t i = 0; i < size; ++i)
        {
            u[i] = momentum * u[i] + scale * g[i];
            v[i] += u[i];
            g[i] = u[i]; // the step follows the momentum-corrected gradient
        }
    }
}

void
DgcCodec::EndLocalTraining(uint64_t examples, uint32_t samples)
{
    m_examplesSeen += examples;
    // The epoch the round's last step belongs to, counted in passes over the client's data.
    const uint64_t epoch = samples == 0 ? 0 : (m_examplesSeen + samples - 1) / samples;
    m_epoch =
        static_cast<uint32_t>(std::min<uint64_t>(epoch, std::numeric_limits<uint32_t>::max()));
    m_trained = true;
}

void
DgcCodec::SelectAndWrite(const TensorLayout& layout,
                         uint32_t warmupUnit,
                         float valueScale,
                         Rng& rng,
                         std::vector<uint8_t>& out,
                         std::span<const float> update,
                         MomentumStep::Before before)
{
    ByteWriter writer(out);
    writer.Reserve(kPayloadHeaderSize);
    WritePayloadHeader(layout, writer);
    float* const accumulation =
        m_accumulationInMomentum ? m_momentum.data() : m_accumulation.data();
    for (size_t t = 0; t < layout.TensorCount(); ++t)
    {
        const uint64_t offset = layout.Offset(t);
        const uint64_t size = layout.Tensors()[t].Size();
        float* u = m_momentum.data() + offset;
        float* v = accumulation + offset;
        const double density = m_config.warmup.Density(m_tensorRatios[t], warmupUnit);
        const uint64_t k = SentCount(density, size);
        if (update.empty())
        {
            SelectDgc(std::span<const float>(v, size),
                      k,
                      m_config.sampleRatio,
                      rng,
                      m_indices,
                      m_values);
        }
        else
        {
            const std::span<const float> g = update.subspan(offset, size);
            const MomentumStep step{g, m_config.momentum, ClipScale(g, m_config.clipNorm), before};
            SelectDgcStepped(step, u, v, size, k, m_config.sampleRatio, rng, m_indices, m_values);
        }
        if (valueScale != 1.0f)
        {
            for (float& value : m_values)
            {
                value = valueScale * value;
            }
        }
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
DgcCodec::Encode(const TensorLayout& layout,
                 std::span<const float> update,
                 Rng& rng,
                 std::vector<uint8_t>& out)
{
    CheckUpdateSize(layout, update.size(), Name());
    ResolveRatios(layout);
    if (m_config.perStep)
    {
        // v already holds this round's steps; `update` (local - global) adds nothing to it.
        if (!m_trained)
        {
            throw CodecConfigError(
                m_config.modePath +
                ": \"step\" sends what the client's local steps accumulated, and no local "
                "training ran through this codec before its Encode (as on a downlink, under a "
                "wrapper, in an adaptive ladder, in training.pipelining's buckets or in fedran "
                "codec); set \"mode\": \"round\" there");
        }
        if (m_momentum.size() != update.size())
        {
            throw CodecConfigError(m_config.modePath + ": local training ran on another layout");
        }
        m_trained = false;
        // The sent values are the update's: x -= lr * sparse(v) is x + (-lr * sparse(v)).
        SelectAndWrite(layout, m_epoch, -m_lr, rng, out);
        return;
    }

    const MomentumStep::Before before = PrepareRoundState(update.size());
    SelectAndWrite(layout, m_round, 1.0f, rng, out, update, before);
}

void
DgcCodec::EncodeConsuming(const TensorLayout& layout,
                          std::vector<float>&& update,
                          Rng& rng,
                          std::vector<uint8_t>& out)
{
    if (m_config.perStep || m_momentum.size() == update.size())
    {
        Encode(layout, update, rng, out);
        return;
    }
    CheckUpdateSize(layout, update.size(), Name());
    ResolveRatios(layout);
    // u = scale * g + 0 is formed where g is, each element read before it is written: no new
    // memory for the state.
    m_momentum.Adopt(std::move(update));
    StartFromZero();
    SelectAndWrite(layout, m_round, 1.0f, rng, out, m_momentum, MomentumStep::Before::Zero);
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

void
DgcCodec::SubtractDecoded(const TensorLayout& layout,
                          std::span<const uint8_t> payload,
                          std::span<float> residual)
{
    CheckUpdateSize(layout, residual.size(), Name());
    ByteReader reader(payload);
    ReadPayloadHeader(layout, reader);
    for (size_t t = 0; t < layout.TensorCount(); ++t)
    {
        SubtractSparse(reader, residual.subspan(layout.Offset(t), layout.Tensors()[t].Size()));
    }
    reader.ExpectEnd();
}

std::unique_ptr<Codec>
MakeDgcCodec(CodecArgs& args)
{
    DgcConfig config;
    config.layerRatiosPath = args.PathOf("layer_ratios");
    config.modePath = args.PathOf("mode");
    const std::string mode = TakeString(args, "mode").value_or("step");
    if (mode != "step" && mode != "round")
    {
        args.Fail("mode", "must be \"step\" or \"round\", got \"" + mode + "\"");
    }
    config.perStep = mode == "step";
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
    // Each mode counts its warm-up in its own unit; the other unit's key would be ignored.
    const char* own = config.perStep ? "warmup_epochs" : "warmup_rounds";
    const char* other = config.perStep ? "warmup_rounds" : "warmup_epochs";
    if (args.Take(other) != nullptr)
    {
        args.Fail(other,
                  std::string("applies to mode \"") + (config.perStep ? "round" : "step") +
                      "\"; mode \"" + mode + "\" warms up by " +
                      (config.perStep ? "the client's epochs (warmup_epochs)"
                                      : "server rounds (warmup_rounds)"));
    }
    config.warmup = SparsityWarmup::FromArgs(args,
                                             own,
                                             config.perStep ? kDgcDefaultWarmupEpochs
                                                            : kDgcDefaultWarmupRounds);
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
