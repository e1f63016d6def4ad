#include "models/fl/secagg/secagg-round.h"

#include "compression/codec.h"
#include "models/fl/federated-task.h"
#include "models/fl/secagg/secagg-quantize.h"

#include <algorithm>
#include <cmath>

namespace fedran::secagg
{

namespace
{

/// The codec types secure aggregation composes with, from their traits.
std::string
ComposedTypes()
{
    std::string names;
    for (const std::string& type : CodecTypeNames())
    {
        const MaskedSum sum = CodecTypeTraits(type).maskedSum;
        if (sum == MaskedSum::Dense || sum == MaskedSum::SharedRandom)
        {
            names += (names.empty() ? "" : ", ") + type;
        }
    }
    return names;
}

} // namespace

std::optional<Composition>
Compose(const CodecSpec& uplink, std::string& why)
{
    if (uplink.Empty())
    {
        return Composition::Dense;
    }
    const std::string& type = uplink.Type();
    switch (uplink.Traits().maskedSum)
    {
        case MaskedSum::SharedRandom:
            if (!uplink.RandomSupportParameters())
            {
                why = type + " declares a shared random support but gives no parameters for it "
                             "(Codec::RandomSupportParameters)";
                return std::nullopt;
            }
            return Composition::RandomK;
        case MaskedSum::Dense:
            if (uplink.BringsAggregator())
            {
                why = type + "'s own aggregation needs each site's payload, not their sum";
                return std::nullopt;
            }
            return Composition::Dense;
        case MaskedSum::OwnSupport:
            why = type + " keeps a support of each site's own, and masks cancel only on a common "
                         "support (masking the values alone reveals the indices; masking the union "
                         "makes the update dense again)";
            return std::nullopt;
        case MaskedSum::NotComposed:
            break;
    }
    if (uplink.TwoExchanges())
    {
        why = type + " combines its payloads in a server step of its own";
    }
    else
    {
        why = type + " is not composed with secure aggregation (composed: " + ComposedTypes() + ")";
    }
    return std::nullopt;
}

uint64_t
RandomKCount(const CodecSpec& uplink, uint64_t size, bool& scale)
{
    const RandomSupport& support = uplink.RandomSupportParameters().value();
    scale = support.scale;
    const uint64_t k = support.k != 0
                           ? support.k
                           : static_cast<uint64_t>(std::nearbyint(support.ratio * double(size)));
    return std::clamp<uint64_t>(k, 1, size);
}

uint64_t
SupportSeed(uint64_t runSeed, uint32_t round)
{
    return Rng(runSeed, kSecAggRoundStreamBase + round).NextU64();
}

SecAggSetup
MakeSetup(const SecAggConfig& config, uint32_t cohort)
{
    SecAggSetup setup;
    setup.shares = config.type == "secagg" || config.numShares == 0 ? cohort : config.numShares;
    setup.threshold = config.threshold;
    setup.bits = config.fieldBits;
    setup.clippingRange = config.clippingRange;
    setup.quantizationRange = config.quantizationRange;
    setup.maxWeight = config.maxWeight;
    return setup;
}

size_t
MaskedElements(const SecAggConfig& /* config */, const CodecSpec& uplink, uint64_t modelSize)
{
    std::string why;
    if (Compose(uplink, why) == Composition::RandomK)
    {
        bool scale = true;
        return 1 + RandomKCount(uplink, modelSize, scale);
    }
    return 1 + modelSize;
}

SecAggRound::SecAggRound(SecAggConfig config,
                         CodecSpec uplink,
                         DpConfig dp,
                         uint64_t modelSize,
                         uint64_t runSeed,
                         uint32_t clientsPerRound)
    : m_config(std::move(config))
    , m_uplink(std::move(uplink))
    , m_dp(std::move(dp))
    , m_modelSize(modelSize)
    , m_runSeed(runSeed)
    , m_clientsPerRound(clientsPerRound)
    , m_dpNoise(runSeed, kDpNoiseStream)
{
}

std::vector<uint8_t>
SecAggRound::Begin(uint32_t round, const std::vector<uint32_t>& cohort, double nowS)
{
    m_round = round;
    const SecAggSetup setup = MakeSetup(m_config, static_cast<uint32_t>(cohort.size()));
    m_server =
        std::make_unique<SecAggServer>(setup, MaskedElements(m_config, m_uplink, m_modelSize));
    // The graph's shuffle: the round's own stream, a draw after the support seed's.
    Rng roundRng(m_runSeed, kSecAggRoundStreamBase + round);
    roundRng.NextU64();
    m_server->Begin(cohort, roundRng.NextU64());
    m_failedIn = Stage::Idle;
    m_stageStartS = nowS;
    m_bytes = 0;
    m_seconds = 0.0;
    return EncodeSetup(setup);
}

std::map<uint32_t, std::vector<uint8_t>>
SecAggRound::Close(double nowS)
{
    const Stage stage = m_server->Current();
    std::map<uint32_t, std::vector<uint8_t>> out = m_server->Close();
    if (m_server->Failed())
    {
        m_failedIn = stage;
    }
    // Time in the extra stages: from the round's start to the model (keys), and the
    // unmasking; a failure ends them.
    const bool keysEnd = stage == Stage::Share || (m_server->Failed() && stage == Stage::Advertise);
    if (keysEnd || stage == Stage::Unmask)
    {
        m_seconds += nowS - m_stageStartS;
    }
    if (stage == Stage::Masked)
    {
        m_stageStartS = nowS; // the unmasking starts
    }
    return out;
}

std::string
SecAggRound::Status() const
{
    if (!m_server)
    {
        return "";
    }
    if (m_server->Failed())
    {
        return std::string("failed_") + StageName(m_failedIn);
    }
    return m_server->Current() == Stage::Done ? "ok" : "incomplete";
}

size_t
SecAggRound::Result(std::span<float> out)
{
    if (!m_server || m_server->Current() != Stage::Done)
    {
        return 0;
    }
    const std::vector<uint32_t> survivors = m_server->Survivors();
    const uint32_t n = static_cast<uint32_t>(survivors.size());
    const bool central = m_dp.Central();
    // DP: unweighted clipped updates over the fixed denominator, as the central rule.
    const std::vector<float> mean = Dequantize(m_server->Sum(),
                                               n,
                                               m_config.clippingRange,
                                               m_config.quantizationRange,
                                               central ? double(m_clientsPerRound) : 0.0);
    std::fill(out.begin(), out.end(), 0.0f);
    std::string why;
    if (Compose(m_uplink, why) == Composition::RandomK)
    {
        bool scale = true;
        const uint64_t k = RandomKCount(m_uplink, m_modelSize, scale);
        const std::vector<uint32_t> support =
            SharedSupport(m_modelSize, k, SupportSeed(m_runSeed, m_round));
        const double factor = scale ? double(m_modelSize) / double(k) : 1.0;
        for (size_t i = 0; i < support.size(); ++i)
        {
            out[support[i]] = static_cast<float>(double(mean[i]) * factor);
        }
    }
    else
    {
        std::copy(mean.begin(), mean.end(), out.begin());
    }
    if (central)
    {
        // Flower's DP with SecAgg: the clients clipped, the server noises the aggregate.
        const double sigma = m_dp.noiseMultiplier * m_dp.clipNorm / double(m_clientsPerRound);
        for (float& v : out)
        {
            v = static_cast<float>(double(v) + sigma * m_dpNoise.Normal());
        }
    }
    return n;
}

SecAggSite::SecAggSite(uint32_t client, uint64_t runSeed, CodecSpec uplink, DpConfig dp)
    : m_client(client)
    , m_runSeed(runSeed)
    , m_uplink(std::move(uplink))
    , m_dp(std::move(dp))
    , m_rng(runSeed, kClientSecAggStreamBase + client)
{
}

void
SecAggSite::Expect(uint32_t round) const
{
    if (!m_protocol || round != m_round)
    {
        throw DecodeError("secagg: a frame of round " + std::to_string(round) +
                              ", but the aggregation in progress is of round " +
                              std::to_string(m_round),
                          0);
    }
}

std::vector<uint8_t>
SecAggSite::Setup(uint32_t round, std::span<const uint8_t> payload)
{
    const SecAggSetup setup = DecodeSetup(payload);
    m_round = round;
    m_protocol = std::make_unique<SecAggClient>(m_client, setup, Rng(m_rng.NextU64(), round));
    return m_protocol->AdvertiseKeys();
}

std::vector<uint8_t>
SecAggSite::Keys(uint32_t round, std::span<const uint8_t> payload)
{
    Expect(round);
    return m_protocol->ShareKeys(payload);
}

void
SecAggSite::Shares(uint32_t round, std::span<const uint8_t> payload)
{
    Expect(round);
    m_protocol->AcceptShares(payload);
}

std::vector<uint8_t>
SecAggSite::Unmask(uint32_t round, std::span<const uint8_t> payload)
{
    Expect(round);
    std::vector<uint8_t> out = m_protocol->Unmask(payload);
    m_protocol.reset(); // the round's secrets are spent
    return out;
}

std::vector<uint8_t>
SecAggSite::MaskedInput(std::span<const float> values, uint64_t examples)
{
    const SecAggSetup& setup = m_protocol->Setup();
    std::string why;
    std::vector<float> kept;
    std::span<const float> input = values;
    if (Compose(m_uplink, why) == Composition::RandomK)
    {
        bool scale = true;
        const uint64_t k = RandomKCount(m_uplink, values.size(), scale);
        for (uint32_t i : SharedSupport(values.size(), k, SupportSeed(m_runSeed, m_round)))
        {
            kept.push_back(values[i]);
        }
        input = kept;
    }
    // DP: every site weighs 1 (the server divides by clients_per_round).
    const uint64_t weight = m_dp.Central()
                                ? setup.quantizationRange
                                : WeightInteger(examples, setup.maxWeight, setup.quantizationRange);
    std::vector<uint64_t> field =
        Quantize(input, weight, setup.clippingRange, setup.quantizationRange, m_rng);
    return m_protocol->MaskInput(std::move(field));
}

} // namespace fedran::secagg
