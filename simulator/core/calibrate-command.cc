#include "simulator/core/calibrate-command.h"

#include "compression/codec-spec.h"
#include "compression/cost-model.h"
#include "models/fl/aggregation-rule.h"
#include "models/learning/dataset.h"
#include "models/learning/gemm.h"
#include "models/learning/model.h"
#include "models/learning/server-optimizer.h"
#include "simulator/core/cli-error.h"
#include "simulator/core/codec-round-trip.h"
#include "simulator/core/version.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <stdexcept>
#include <thread>
#include <vector>

namespace fedran
{

namespace
{

/// Seconds of one call of `work`: the best of five timings, each of enough calls to last
/// about 20 ms (the machine is shared; the best repetition is the least disturbed).
double
TimeIt(const std::function<void()>& work)
{
    using Clock = std::chrono::steady_clock;
    work(); // warm caches and allocations
    double best = 1e30;
    for (int rep = 0; rep < 5; ++rep)
    {
        int calls = 0;
        const auto start = Clock::now();
        double elapsed = 0.0;
        do
        {
            work();
            ++calls;
            elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        } while (elapsed < 0.02);
        best = std::min(best, elapsed / calls);
    }
    return best;
}

/// One timed point: the work's size and its seconds.
struct Sample
{
    CodecWork work;
    double seconds = 0.0;
};

/// Least squares of seconds on [1, terms...]; a term whose coefficient comes out negative
/// is dropped and the rest refitted, so every coefficient is >= 0.
LinearCost
Fit(const std::vector<Sample>& samples, uint32_t terms)
{
    std::vector<int> active{0}; // 0 fixed, 1 elements, 2 bytes, 3 rank elements
    if (terms & kCostElements)
    {
        active.push_back(1);
    }
    if (terms & kCostBytes)
    {
        active.push_back(2);
    }
    if (terms & kCostRankElements)
    {
        active.push_back(3);
    }
    auto feature = [](const Sample& s, int term) {
        switch (term)
        {
            case 0:
                return 1.0;
            case 1:
                return double(s.work.elements);
            case 2:
                return double(s.work.payloadBytes);
            default:
                return double(s.work.rankElements);
        }
    };
    std::vector<double> coef;
    while (!active.empty())
    {
        const size_t m = active.size();
        // Normal equations, columns scaled to unit norm for conditioning.
        std::vector<double> scale(m, 0.0);
        for (size_t j = 0; j < m; ++j)
        {
            for (const Sample& s : samples)
            {
                scale[j] += feature(s, active[j]) * feature(s, active[j]);
            }
            scale[j] = scale[j] > 0.0 ? std::sqrt(scale[j]) : 1.0;
        }
        std::vector<double> a(m * (m + 1), 0.0);
        for (const Sample& s : samples)
        {
            for (size_t i = 0; i < m; ++i)
            {
                const double fi = feature(s, active[i]) / scale[i];
                for (size_t j = 0; j < m; ++j)
                {
                    a[i * (m + 1) + j] += fi * feature(s, active[j]) / scale[j];
                }
                a[i * (m + 1) + m] += fi * s.seconds;
            }
        }
        for (size_t i = 0; i < m; ++i) // Gauss-Jordan with partial pivoting
        {
            size_t pivot = i;
            for (size_t r = i + 1; r < m; ++r)
            {
                if (std::abs(a[r * (m + 1) + i]) > std::abs(a[pivot * (m + 1) + i]))
                {
                    pivot = r;
                }
            }
            for (size_t c = 0; c <= m; ++c)
            {
                std::swap(a[i * (m + 1) + c], a[pivot * (m + 1) + c]);
            }
            const double d = a[i * (m + 1) + i];
            for (size_t r = 0; r < m; ++r)
            {
                if (r == i || d == 0.0)
                {
                    continue;
                }
                const double f = a[r * (m + 1) + i] / d;
                for (size_t c = 0; c <= m; ++c)
                {
                    a[r * (m + 1) + c] -= f * a[i * (m + 1) + c];
                }
            }
        }
        coef.assign(m, 0.0);
        size_t worst = m;
        for (size_t i = 0; i < m; ++i)
        {
            const double d = a[i * (m + 1) + i];
            coef[i] = d != 0.0 ? a[i * (m + 1) + m] / d / scale[i] : 0.0;
            if (coef[i] < 0.0 && (worst == m || coef[i] * scale[i] < coef[worst] * scale[worst]))
            {
                worst = i;
            }
        }
        if (worst == m)
        {
            break;
        }
        active.erase(active.begin() + long(worst));
    }
    LinearCost cost;
    for (size_t i = 0; i < active.size(); ++i)
    {
        double* slot[] = {&cost.fixedS, &cost.perElementS, &cost.perByteS, &cost.perRankElementS};
        *slot[active[i]] = coef[i];
    }
    return cost;
}

std::string
CpuName()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
    {
        if (line.rfind("model name", 0) == 0)
        {
            const size_t colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    }
    return "unknown";
}

std::vector<float>
Gaussian(size_t n, uint64_t seed)
{
    Rng rng(seed, 99);
    std::vector<float> v(n);
    for (float& x : v)
    {
        x = float(rng.Normal());
    }
    return v;
}

/// A layout of `n` floats as matrices of 256 columns (so low-rank codecs compress them).
TensorLayout
MatrixLayout(uint64_t n)
{
    return TensorLayout({{"w", {uint32_t(n / 256), 256}}});
}

/// The codec samples of one spec: encode, decode, and for a two-exchange codec reply and
/// close, at each size.
struct CodecSamples
{
    std::vector<Sample> encode, decode, reply, close;
};

void
MeasureSpec(const nlohmann::json& spec, const std::vector<uint64_t>& sizes, CodecSamples& out)
{
    const CodecSpec parsed = CodecSpec::Parse(spec, "calibration");
    for (uint64_t n : sizes)
    {
        const TensorLayout layout = MatrixLayout(n);
        const std::vector<float> update = Gaussian(layout.TotalSize(), n);
        // A fresh pair at each size: the encoder's state is that of a first round.
        CodecRoundTrip pair(parsed);
        Codec& encoder = pair.Encoder();
        Codec& decoder = pair.Decoder();
        const uint32_t round = 1;
        encoder.BeginRound(round);
        decoder.BeginRound(round);
        Rng rng(1, 1);
        std::vector<uint8_t> payload;
        std::vector<float> decoded(layout.TotalSize());
        const uint64_t rankElements =
            spec.contains("rank") ? layout.TotalSize() * spec.at("rank").get<uint64_t>() : 0;
        if (!encoder.HasRoundExchange())
        {
            const double enc = TimeIt([&] {
                payload.clear();
                encoder.Encode(layout, update, rng, payload);
            });
            const double dec = TimeIt([&] { decoder.Decode(layout, payload, decoded); });
            const CodecWork work{layout.TotalSize(), payload.size(), rankElements};
            out.encode.push_back({work, enc});
            out.decode.push_back({work, dec});
            continue;
        }
        // Two exchanges: the client's first step and reply, the server's fold and close.
        auto exchange = encoder.MakeExchange(layout, 7);
        std::vector<uint8_t> state;
        exchange->BeginRound(round, state);
        if (!exchange->NeedsReplies())
        {
            throw std::runtime_error("calibration: " + spec.dump() + " sends no reply at " +
                                     std::to_string(n) + " floats");
        }
        // Each Encode takes the round's state first (it is consumed); taking it is part of
        // the client's first step.
        const double enc = TimeIt([&] {
            encoder.AcceptRoundState(layout, state);
            payload.clear();
            encoder.Encode(layout, update, rng, payload);
        });
        std::vector<uint8_t> message;
        std::vector<uint8_t> reply;
        double fold = 0.0;
        double close = 0.0;
        double replyS = 0.0;
        {
            // Fold and close are timed on fresh exchanges of the same round, one fold each.
            fold = TimeIt([&] {
                auto ex = encoder.MakeExchange(layout, 7);
                std::vector<uint8_t> st;
                ex->BeginRound(round, st);
                ex->AddFirst(payload, 1.0);
            });
            const double begin = TimeIt([&] {
                auto ex = encoder.MakeExchange(layout, 7);
                std::vector<uint8_t> st;
                ex->BeginRound(round, st);
            });
            fold = std::max(0.0, fold - begin);
            const double closeAll = TimeIt([&] {
                auto ex = encoder.MakeExchange(layout, 7);
                std::vector<uint8_t> st;
                ex->BeginRound(round, st);
                ex->AddFirst(payload, 1.0);
                message.clear();
                ex->CloseFirstPhase(message);
            });
            close = std::max(0.0, closeAll - begin - fold);
            // A reply answers the update last encoded (and consumes it): timed with a first
            // step each, whose own time is taken off.
            const double both = TimeIt([&] {
                encoder.AcceptRoundState(layout, state);
                payload.clear();
                encoder.Encode(layout, update, rng, payload);
                reply.clear();
                encoder.EncodeReply(layout, message, reply);
            });
            replyS = std::max(0.0, both - enc);
        }
        out.encode.push_back({{layout.TotalSize(), payload.size(), rankElements}, enc});
        out.decode.push_back({{layout.TotalSize(), payload.size(), rankElements}, fold});
        out.close.push_back({{layout.TotalSize(), 0, rankElements}, close});
        out.reply.push_back({{layout.TotalSize(), reply.size(), rankElements}, replyS});
    }
}

/// Each robust rule's combination of a round of kRuleUpdates updates (Result, once they are
/// in), per unit of its own work (AggregationRule::ResultWork). Rules that fold as updates
/// arrive (means, votes) do no such work: their folds are priced per update.
std::map<std::string, double, std::less<>>
MeasureRobustRules(const std::vector<uint64_t>& sizes)
{
    constexpr uint32_t kRuleUpdates = 10;
    const auto none = MakeCodec(nlohmann::json{{"type", "none"}}, "calibrate");
    std::map<std::string, double, std::less<>> prices;
    for (const std::string& name : AggregationRuleNames())
    {
        const RuleTraits& traits = RuleTypeTraits(name);
        if (traits.foldsOnArrival)
        {
            continue;
        }
        nlohmann::json keys = nlohmann::json::parse(traits.calibrationKeys);
        keys["type"] = name;
        const auto rule = MakeAggregationRule(RuleSpec::Parse(keys, "calibrate"),
                                              RuleContext{kRuleUpdates, none.get(), false});
        std::vector<Sample> samples;
        for (uint64_t n : sizes)
        {
            rule->Reset(n);
            for (uint32_t i = 0; i < kRuleUpdates; ++i)
            {
                rule->Add(Gaussian(n, 1000 + i), 1.0 + i);
            }
            std::vector<float> out(n);
            const double seconds = TimeIt([&] { rule->Result(out); });
            samples.push_back(
                {{static_cast<uint64_t>(rule->ResultWork(kRuleUpdates, n)), 0, 0}, seconds});
        }
        prices.emplace(name, Fit(samples, kCostElements).perElementS);
    }
    return prices;
}

} // namespace

nlohmann::json
MeasureCostProfile(const CalibrateOptions& options)
{
    std::vector<uint64_t> sizes;
    for (double base : {65536.0, 262144.0, 1048576.0})
    {
        // At least 64 x 256, which every codec compresses (power_sgd's rank 4 included).
        sizes.push_back(std::max<uint64_t>(16384, uint64_t(base * options.scale) / 256 * 256));
    }
    CostProfile profile;
    for (const std::string& name : CodecTypeNames())
    {
        const CostModelDeclaration declared = CodecCostModel(name);
        CodecSamples samples;
        for (const nlohmann::json& spec : declared.calibration)
        {
            MeasureSpec(spec, sizes, samples);
        }
        CodecCost cost;
        if (!samples.encode.empty())
        {
            const bool wrapper = declared.calibration.front().contains("base");
            if (wrapper)
            {
                // A wrapper's own work: its time over "none" less none's own encode.
                const LinearCost none = profile.Codec("none").encode;
                for (Sample& s : samples.encode)
                {
                    s.seconds = std::max(0.0, s.seconds - none.Seconds(s.work));
                }
            }
            cost.encode = Fit(samples.encode, declared.terms);
            cost.decode = wrapper ? LinearCost{} : Fit(samples.decode, declared.terms);
            if (!samples.reply.empty())
            {
                cost.reply = Fit(samples.reply, declared.terms);
                cost.close = Fit(samples.close, declared.terms);
            }
        }
        profile.codecs.emplace(name, cost);
    }

    // The server: folding an update into a weighted mean, applying the mean (FedAvg).
    std::vector<Sample> fold;
    std::vector<Sample> apply;
    for (uint64_t n : sizes)
    {
        const std::vector<float> update = Gaussian(n, n);
        std::vector<float> params(n, 0.0f);
        auto aggregator = MakeWeightedMeanAggregator();
        aggregator->Reset(n);
        fold.push_back({{n, 0, 0}, TimeIt([&] { aggregator->Add(update, 1.0); })});
        auto optimizer = MakeServerOptimizer(ServerOptimizerConfig{});
        const double resultS = TimeIt([&] { aggregator->Result(params); });
        const double applyS = TimeIt([&] { optimizer->Apply(update, params); });
        apply.push_back({{n, 0, 0}, resultS + applyS});
    }
    profile.foldPerElementS = Fit(fold, kCostElements).perElementS;
    profile.applyPerElementS = Fit(apply, kCostElements).perElementS;
    profile.ruleWorkS = MeasureRobustRules(sizes);

    // A forward pass: the MLP of the shipped scenarios over synthetic images.
    {
        auto model = MakeModel("mlp", 784, 10);
        Dataset data;
        data.features = 784;
        data.classes = 10;
        const size_t examples = std::max<size_t>(64, size_t(2000 * options.scale));
        data.x = Gaussian(examples * 784, 3);
        data.y.assign(examples, 0);
        std::vector<float> params(model->Layout().TotalSize());
        Rng rng(1, 2);
        model->InitParams(params, rng);
        const double seconds = TimeIt([&] { model->Evaluate(params, data); });
        profile.flopS = seconds / (model->ForwardFlops() * double(examples));
    }

    profile.machine = {{"cpu", CpuName()},
                       {"logical_cpus", std::thread::hardware_concurrency()},
                       {"threads_used", 1},
                       {"matrix_kernels", GemmKindName(ActiveGemmKind())},
                       {"fedran", FedranVersion()},
                       {"command", "fedran calibrate"},
                       {"sizes", sizes}};
    return profile.ToJson();
}

int
RunCalibrateCommand(const CalibrateOptions& options)
{
    if (options.out.empty())
    {
        throw BadInput("calibrate: --out is required");
    }
    if (!(options.scale > 0.0) || options.scale > 16.0)
    {
        throw BadInput("calibrate: --scale must be in (0, 16]");
    }
    const nlohmann::json profile = MeasureCostProfile(options);
    CostProfile::FromJson(profile); // what a scenario will read must be readable
    const std::string tmp = options.out + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << profile.dump(2) << "\n";
        if (!out)
        {
            throw BadInput("calibrate: cannot write '" + tmp + "'");
        }
    }
    if (std::rename(tmp.c_str(), options.out.c_str()) != 0)
    {
        throw BadInput("calibrate: cannot write '" + options.out + "'");
    }
    std::printf("%s: cost profile of %s\n",
                options.out.c_str(),
                profile.at("machine").at("cpu").get<std::string>().c_str());
    return 0;
}

} // namespace fedran
