// "adaptive": the ladder of codecs a rate controller chooses from (see adaptive-ladder.h).

#include "compression/adaptive-ladder.h"
#include "compression/cost-model.h"
#include "compression/internal/codecs.h"
#include "compression/internal/dgc-codec.h"
#include "compression/internal/error-feedback-codec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

namespace fedran::internal
{

namespace
{

/// The first spec in `spec`'s tree (itself first) whose type cannot be a ladder rung.
const CodecSpec*
FirstNonRung(const CodecSpec& spec)
{
    if (!spec.Traits().notARungBecause.empty())
    {
        return &spec;
    }
    for (const CodecSpec& child : spec.Children())
    {
        if (const CodecSpec* found = FirstNonRung(child))
        {
            return found;
        }
    }
    return nullptr;
}

/// What an encoder carries on after its latest Encode besides the payload: error feedback's
/// residual e' = p - D(C(p)) or DGC's accumulation (zero where sent, p where not), so that
/// p = decoded + carried. Empty for a codec that carries nothing. A wrapper without state of
/// its own (clipped) passes the question on to its base.
std::span<const float>
Carried(const Codec& codec)
{
    if (const auto* ef = dynamic_cast<const ErrorFeedbackCodec*>(&codec))
    {
        return ef->Residual();
    }
    if (const auto* dgc = dynamic_cast<const DgcCodec*>(&codec))
    {
        return dgc->Accumulation();
    }
    if (const auto* wrapper = dynamic_cast<const WrapperCodec*>(&codec))
    {
        return Carried(wrapper->Base());
    }
    return {};
}

class AdaptiveCodec
    : public Codec
    , public AdaptiveLadder
{
  public:
    explicit AdaptiveCodec(CodecArgs& args)
        : m_name(args.Name())
        , m_id(args.Id())
    {
        const nlohmann::json* ladder = args.Take("ladder");
        if (ladder == nullptr || !ladder->is_array() || ladder->empty())
        {
            args.Fail("ladder", "must be a non-empty array of codec specs (most faithful first)");
        }
        if (ladder->size() > 255)
        {
            args.Fail("ladder", "at most 255 rungs");
        }
        for (size_t i = 0; i < ladder->size(); ++i)
        {
            const std::string path = args.PathOf("ladder") + "[" + std::to_string(i) + "]";
            RefuseAdaptiveRung((*ladder)[i], path);
            m_rungs.push_back(args.BuildChild((*ladder)[i], "/ladder/" + std::to_string(i), path));
            CheckRung(args.Children().back());
            if (!m_rungs.back()->Clone())
            {
                throw CodecConfigError(path + ": a codec that cannot be copied cannot be a "
                                              "ladder rung (its trial encodings need a copy)");
            }
        }
        m_specs = args.Children();
        m_trials.resize(m_rungs.size());
        m_decoders.resize(m_rungs.size());
        const std::string onSkip = TakeOnSkip(args);
        m_reuseOnSkip = onSkip == "reuse";
        for (std::string_view key : kLadderControllerKeys)
        {
            args.Take(std::string(key)); // validated by the controller (models/fl/)
        }
    }

    std::string_view Name() const override
    {
        return m_name;
    }

    uint16_t Id() const override
    {
        return m_id;
    }

    void Encode(const TensorLayout& layout,
                std::span<const float> update,
                Rng& rng,
                std::vector<uint8_t>& out) override
    {
        m_rungs[m_selected]->Encode(layout, update, rng, out);
        out.push_back(static_cast<uint8_t>(m_selected));
    }

    void Decode(const TensorLayout& layout,
                std::span<const uint8_t> payload,
                std::span<float> out) override
    {
        if (payload.empty())
        {
            throw DecodeError("adaptive: empty payload (a skipped round) has no update", 0);
        }
        // The rung index trails the rung's own payload, so the rung's byte offsets (and its
        // error messages) are those of the whole payload.
        const size_t rung = payload.back();
        if (rung >= m_rungs.size())
        {
            throw DecodeError("adaptive: rung " + std::to_string(rung) + " beyond the " +
                                  std::to_string(m_rungs.size()) + "-rung ladder",
                              payload.size() - 1);
        }
        m_rungs[rung]->Decode(layout, payload.first(payload.size() - 1), out);
        if (m_reuseOnSkip)
        {
            m_last.assign(out.begin(), out.end());
        }
    }

    // The rung's work; the trailing rung byte costs nothing. An empty payload is a skip.
    double EncodeSeconds(const CostProfile& profile,
                         const TensorLayout& layout,
                         std::span<const uint8_t> payload) const override
    {
        return payload.empty()
                   ? 0.0
                   : m_rungs[m_selected]->EncodeSeconds(profile,
                                                        layout,
                                                        payload.first(payload.size() - 1));
    }

    double DecodeSeconds(const CostProfile& profile,
                         const TensorLayout& layout,
                         std::span<const uint8_t> payload) const override
    {
        if (payload.empty() || payload.back() >= m_rungs.size())
        {
            return 0.0;
        }
        return m_rungs[payload.back()]->DecodeSeconds(profile,
                                                      layout,
                                                      payload.first(payload.size() - 1));
    }

    void BeginRound(uint32_t round) override
    {
        DiscardTrials();
        m_round = round;
        for (auto& rung : m_rungs)
        {
            rung->BeginRound(round);
        }
    }

    // A mean: rungs of different families decode to comparable updates (sign's majority
    // vote, which needs every client on sign, is rejected as a rung).
    std::unique_ptr<Aggregator> MakeAggregator() const override
    {
        return MakeWeightedMeanAggregator();
    }

    size_t RungCount() const override
    {
        return m_rungs.size();
    }

    void SelectRung(size_t rung) override
    {
        if (rung >= m_rungs.size())
        {
            throw std::out_of_range("adaptive: no rung " + std::to_string(rung));
        }
        m_selected = rung;
    }

    size_t SelectedRung() const override
    {
        return m_selected;
    }

    std::string RungName(size_t rung) const override
    {
        return m_specs.at(rung).Label();
    }

    RungProfile Trial(const TensorLayout& layout,
                      size_t rung,
                      std::span<const float> update,
                      const Rng& rng,
                      bool measureError,
                      const CostProfile* profile) override
    {
        std::optional<RungTrial>& trial = m_trials.at(rung);
        if (trial && (!measureError || !std::isnan(trial->profile.relativeError)))
        {
            return trial->profile; // this round's, already made (with its error if asked)
        }
        if (!trial)
        {
            trial.emplace();
            trial->codec = m_rungs[rung]->Clone();
            trial->rng = rng;
            trial->codec->Encode(layout, update, trial->rng, trial->payload);
            trial->profile.payloadBytes = trial->payload.size() + 1;
            trial->profile.relativeError = std::numeric_limits<double>::quiet_NaN();
            trial->profile.biased = trial->codec->BiasedError();
            if (profile)
            {
                trial->profile.seconds =
                    trial->codec->EncodeSeconds(*profile, layout, trial->payload);
            }
        }
        if (measureError)
        {
            trial->profile.relativeError = RelativeError(layout, rung, update, *trial);
            if (profile)
            {
                trial->profile.seconds +=
                    trial->codec->DecodeSeconds(*profile, layout, trial->payload);
            }
        }
        return trial->profile;
    }

    void Commit(size_t rung, std::vector<uint8_t>& out, Rng& rng) override
    {
        std::optional<RungTrial>& trial = m_trials.at(rung);
        if (!trial)
        {
            throw std::logic_error("adaptive: no trial of rung " + std::to_string(rung) +
                                   " to commit");
        }
        out.insert(out.end(), trial->payload.begin(), trial->payload.end());
        out.push_back(static_cast<uint8_t>(rung));
        m_rungs[rung] = std::move(trial->codec);
        rng = trial->rng;
        m_selected = rung;
        DiscardTrials();
    }

    void DiscardTrials() override
    {
        for (auto& trial : m_trials)
        {
            trial.reset();
        }
    }

    bool ReusesOnSkip() const override
    {
        return m_reuseOnSkip;
    }

    Arrival DecodeUpdate(const TensorLayout& layout,
                         std::span<const uint8_t> payload,
                         std::span<float> out) override
    {
        if (!payload.empty())
        {
            Decode(layout, payload, out);
            return Arrival::Update;
        }
        if (!m_reuseOnSkip || m_last.size() != out.size())
        {
            return Arrival::SkipOmit;
        }
        std::copy(m_last.begin(), m_last.end(), out.begin());
        return Arrival::SkipReuse;
    }

    AdaptiveLadder* Ladder() override
    {
        return this;
    }

  private:
    /// One rung's trial encoding of this round's update.
    struct RungTrial
    {
        std::unique_ptr<Codec> codec; ///< the rung's copy, after encoding
        Rng rng;                      ///< the client's codec stream after the encoding
        std::vector<uint8_t> payload; ///< without the rung byte
        RungProfile profile;
    };

    /// ||D(C(p)) - p||^2 / ||p||^2 of a trial, p = decoded + Carried(codec copy) for a rung
    /// with state, else the update.
    double RelativeError(const TensorLayout& layout,
                         size_t rung,
                         std::span<const float> update,
                         const RungTrial& trial)
    {
        if (!m_decoders[rung])
        {
            m_decoders[rung] = MakeCodec(m_specs[rung]);
        }
        const uint64_t d = layout.TotalSize();
        std::vector<float> decoded(d);
        m_decoders[rung]->BeginRound(m_round);
        m_decoders[rung]->Decode(layout, trial.payload, decoded);
        const std::span<const float> carried = Carried(*trial.codec);
        const bool withState = carried.size() == d;
        double err = 0.0;
        double norm = 0.0;
        for (uint64_t i = 0; i < d; ++i)
        {
            const double p = withState ? double(decoded[i]) + double(carried[i]) : update[i];
            const double diff = double(decoded[i]) - p;
            err += diff * diff;
            norm += p * p;
        }
        return norm > 0.0 ? err / norm : 0.0;
    }

    /// Refused before it is built, so that its own errors do not hide this one.
    static void RefuseAdaptiveRung(const nlohmann::json& spec, const std::string& path)
    {
        if (spec.is_object() && spec.contains("type") && spec["type"].is_string())
        {
            const auto& type = spec["type"].get_ref<const std::string&>();
            for (const std::string& name : CodecTypeNames())
            {
                if (name == type && CodecTypeTraits(name).adaptive)
                {
                    throw CodecConfigError(path + ": " +
                                           std::string(CodecTypeTraits(name).notARungBecause));
                }
            }
        }
    }

    static void CheckRung(const CodecSpec& rung)
    {
        if (const CodecSpec* culprit = FirstNonRung(rung))
        {
            throw CodecConfigError(rung.Path() + ": " + culprit->Type() +
                                   " cannot be a ladder rung (" +
                                   std::string(culprit->Traits().notARungBecause) + ")");
        }
        if (rung.TwoExchanges())
        {
            throw CodecConfigError(rung.Path() + ": a codec whose round takes two exchanges "
                                                 "cannot be a ladder rung");
        }
        if (rung.BringsAggregator())
        {
            throw CodecConfigError(rung.Path() + ": a rung cannot bring its own aggregator (" +
                                   rung.Label() +
                                   "): the ladder's rungs are averaged, and a vote needs every "
                                   "client on the same codec; set sign's \"aggregation\" to "
                                   "\"mean\"");
        }
    }

    static std::string TakeOnSkip(CodecArgs& args)
    {
        const nlohmann::json* value = args.Take("on_skip");
        if (value == nullptr)
        {
            return "omit";
        }
        if (!value->is_string() || (*value != "reuse" && *value != "omit"))
        {
            args.Fail("on_skip", "must be \"reuse\" or \"omit\"");
        }
        return value->get<std::string>();
    }

    std::string_view m_name;
    uint16_t m_id;
    std::vector<CodecSpec> m_specs; ///< the rungs' checked specs
    std::vector<std::unique_ptr<Codec>> m_rungs;
    std::vector<std::optional<RungTrial>> m_trials; ///< this round's, per rung
    std::vector<std::unique_ptr<Codec>> m_decoders; ///< per rung, made at its first error
    uint32_t m_round = 0;                           ///< of the latest BeginRound
    std::vector<float> m_last; ///< server side, "reuse": the last decoded update
    size_t m_selected = 0;
    bool m_reuseOnSkip = false;
};

} // namespace

std::unique_ptr<Codec>
MakeAdaptiveCodec(CodecArgs& args)
{
    return std::make_unique<AdaptiveCodec>(args);
}

} // namespace fedran::internal
