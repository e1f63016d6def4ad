#include "models/fl/rate-controller.h"

#include "models/fl/time-policy.h"

#include <algorithm>
#include <numeric>

namespace fedran::control
{

RateController::RateController(ControllerConfig config)
    : m_config(std::move(config))
{
    const EstimatorKind kind = m_config.estimator.value_or(m_config.policy == Policy::Time
                                                               ? EstimatorKind::RobustHarmonicMean
                                                               : EstimatorKind::HarmonicMean);
    if (kind == EstimatorKind::Ewma)
    {
        m_estimator = std::make_unique<EwmaEstimator>(m_config.ewmaAlpha);
    }
    else if (kind == EstimatorKind::RobustHarmonicMean)
    {
        m_estimator = std::make_unique<RobustHarmonicMeanEstimator>(m_config.window);
    }
    else
    {
        m_estimator = std::make_unique<HarmonicMeanEstimator>(m_config.window);
    }
}

void
RateController::AddTransfer(const TransferSample& sample)
{
    m_estimator->Add(sample);
}

std::pair<size_t, size_t>
RateController::Allowed(uint32_t round, size_t rungs) const
{
    std::pair<size_t, size_t> allowed{0, rungs - 1};
    for (const RungWindow& window : m_config.rungSchedule)
    {
        if (window.fromRound > round)
        {
            break;
        }
        allowed = {std::min(window.minRung, rungs - 1), std::min(window.maxRung, rungs - 1)};
    }
    return allowed;
}

size_t
RateController::FitRung(double bps,
                        double budgetS,
                        const RungMeasure& measure,
                        std::pair<size_t, size_t> allowed) const
{
    const double capacityBits = bps * std::max(budgetS, 0.0) * m_config.safety;
    for (size_t r = allowed.first; r <= allowed.second; ++r)
    {
        if (8.0 * double(measure(r).payloadBytes) <= capacityBits)
        {
            return r;
        }
    }
    // Nothing fits: send the smallest allowed rung anyway; it may still make it.
    return allowed.second;
}

size_t
RateController::VarianceRung(double noiseRatio,
                             const RungMeasure& measure,
                             std::pair<size_t, size_t> allowed) const
{
    // The coarsest rung whose own error stays within kappa x the noise the update already
    // carries; rungs are ordered by faithfulness, not necessarily by error, so scan them all.
    size_t chosen = allowed.first;
    for (size_t r = allowed.first; r <= allowed.second; ++r)
    {
        if (measure(r).relativeError <= m_config.varianceKappa * noiseRatio)
        {
            chosen = r;
        }
    }
    return chosen;
}

bool
RateController::ShouldSkip(double updateNorm)
{
    bool skip = false;
    if (m_config.skipRatio > 0.0 && !m_recentNorms.empty() &&
        m_skippedInARow < m_config.maxStaleness)
    {
        const double mean = std::accumulate(m_recentNorms.begin(), m_recentNorms.end(), 0.0) /
                            double(m_recentNorms.size());
        skip = updateNorm < m_config.skipRatio * mean;
    }
    m_recentNorms.push_back(updateNorm);
    if (m_recentNorms.size() > m_config.skipWindow)
    {
        m_recentNorms.pop_front();
    }
    m_skippedInARow = skip ? m_skippedInARow + 1 : 0;
    return skip;
}

Decision
RateController::Decide(const RoundInputs& in, std::span<const RungProfile> rungs)
{
    return Decide(in, rungs.size(), [rungs](size_t r) { return rungs[r]; });
}

Decision
RateController::Decide(const RoundInputs& in, size_t rungCount, const RungMeasure& measure)
{
    Decision decision;
    const auto allowed = Allowed(in.round, rungCount);
    if (ShouldSkip(in.updateNorm))
    {
        decision.skip = true;
        decision.rung = allowed.first;
        return decision;
    }

    const Policy policy = m_config.policy;
    if (ServerLed())
    {
        decision.rung = std::clamp(in.assignedRung, allowed.first, allowed.second);
        return decision;
    }
    if (policy == Policy::Fixed)
    {
        decision.rung = std::clamp(m_config.fixedRung, allowed.first, allowed.second);
        return decision;
    }

    size_t varianceRung = allowed.first;
    if (NeedsError())
    {
        if (in.updateNorm > 0.0 && in.gradVariance > 0.0 && in.steps > 0)
        {
            decision.noiseRatio = in.learningRate * in.learningRate * double(in.steps) *
                                  in.gradVariance / (in.updateNorm * in.updateNorm);
        }
        if (decision.noiseRatio && policy != Policy::Time)
        {
            varianceRung = VarianceRung(*decision.noiseRatio, measure, allowed);
        }
        if (policy == Policy::Variance)
        {
            decision.rung = varianceRung;
            return decision;
        }
    }

    decision.timeBudgetS = policy == Policy::Throughput
                               ? m_config.targetUploadS.value_or(in.deadlineS)
                               : in.deadlineS - in.computeS - in.elapsedS;
    decision.predictedBps = in.predictedBps;
    if (!decision.predictedBps && m_config.noHistory == NoHistory::Downlink)
    {
        decision.predictedBps = m_config.initialBps ? m_config.initialBps : in.downlinkBps;
    }
    else if (!decision.predictedBps)
    {
        decision.predictedBps = m_config.initialBps;
    }
    size_t bandwidthRung;
    if (policy == Policy::Time && decision.predictedBps && *decision.predictedBps > 0.0)
    {
        TimeInputs timeIn;
        timeIn.startToModelS = in.elapsedS;
        timeIn.computeS = in.computeS;
        timeIn.bps = *decision.predictedBps;
        timeIn.noiseRatio = decision.noiseRatio.value_or(0.0);
        timeIn.roundEnd = in.roundEnd;
        timeIn.deadlineS = in.deadlineS;
        timeIn.averagedUpdates = m_config.averagedUpdates;
        decision.rung = ChooseForTime(timeIn, measure, allowed).rung;
        return decision;
    }
    if (decision.predictedBps)
    {
        bandwidthRung = FitRung(*decision.predictedBps, *decision.timeBudgetS, measure, allowed);
    }
    else
    {
        bandwidthRung =
            m_config.noHistory == NoHistory::MostFaithful ? allowed.first : allowed.second;
    }
    decision.rung = std::max(varianceRung, bandwidthRung);
    return decision;
}

} // namespace fedran::control
