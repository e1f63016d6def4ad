// RoundCoordinator: a round that has ended (at its deadline, once it has its updates, or with
// nobody left to wait for) is combined, applied to the global model and evaluated on the
// server clock, then reported, and the next round starts (or the run, or an edge tier's
// episode, ends).

#include "models/fl/round-coordinator.h"

#include <cmath>

namespace fedran
{

void
RoundCoordinator::EndRound()
{
    if (m_secagg && m_secagg->Current() == secagg::Stage::Masked)
    {
        // The masked inputs are in (or the deadline passed): unmask before combining. The
        // round ends when the unmasking does (round-secagg.cc).
        CancelDeadline();
        m_busy.insert(m_pending.begin(), m_pending.end());
        m_pending.clear();
        CloseSecAggStage();
        return;
    }
    // Whoever has not answered is late (past the deadline, or beyond the first
    // clientsPerRound); their update is discarded when it arrives.
    m_busy.insert(m_pending.begin(), m_pending.end());
    m_pending.clear();
    m_firstPhase = false;
    if (m_phaseClosing)
    {
        // The deadline came while the server was between the phases: no replies.
        m_phaseClosing = false;
        m_host.CancelTimer(CoordinatorTimer::PhaseClose);
    }

    // The server optimiser moves the model by the combined update (nothing moves without one).
    // A two-exchange round that ends in its first phase has no update.
    RoundRecord record;
    size_t combined = m_exchange ? m_exchange->Count() : m_state.rule->Count();
    if (m_secagg)
    {
        // The unmasked mean (none when the aggregation failed).
        combined = m_secagg->Result(m_state.combined);
        record.secaggStatus = m_secagg->Status();
        record.secaggFailure = m_secagg->Server().Failed() ? m_secagg->Failure() : "";
        record.secaggBytes = m_secagg->Bytes();
        record.secaggS = m_secagg->Seconds();
    }
    if (combined > 0)
    {
        if (m_secagg)
        {
            // No per-site weights: the server never sees an update alone.
        }
        else if (m_exchange)
        {
            m_exchange->Result(m_state.combined);
        }
        else
        {
            m_state.rule->Result(m_state.combined);
            const std::vector<double> weights = m_state.rule->AggregateWeights();
            for (size_t i = 0; i < m_added.size() && i < weights.size(); ++i)
            {
                record.aggregateWeights.emplace_back(m_added[i], weights[i]);
            }
        }
        m_state.optimizer->Apply(m_state.combined, m_state.global);
    }
    Evaluation eval;
    if (m_config.episodic)
    {
        eval.accuracy = eval.loss = std::nan("");
    }
    else
    {
        eval = m_task->model->Evaluate(m_state.global, m_task->data->test);
    }

    record.round = m_round;
    record.robustRule = m_task->robust.type;
    if (m_state.privacy)
    {
        // Central: every round is a step of the mechanism, whether or not an update arrived.
        // Local: each selection of a site is a step of its own; the worst site's is reported.
        record.privacySteps = m_task->dp.Local() ? m_dpSelections.Max() : m_round;
        record.epsilon = m_state.privacy->After(record.privacySteps).epsilon;
        record.clipNorm = m_state.clip ? m_state.clip->Current() : m_task->dp.clipNorm;
    }
    if (m_state.clip)
    {
        // The round's bits move C for the next round (one count-noise draw per round).
        m_state.clip->EndRound();
    }
    record.startS = m_roundStartS;
    record.selected = m_secagg ? m_secaggCohort : m_selected;
    record.selectionScores = m_scores;
    record.participants = static_cast<uint32_t>(combined);
    record.testAccuracy = eval.accuracy;
    record.testLoss = eval.loss;
    record.testRmse = eval.rmse;
    record.testMae = eval.mae;
    record.testNrmse = eval.nrmse;
    // The model is computed now; the round ends and the next begins once the server clock
    // has done that work (an edge aggregator's episodic rounds evaluate nothing).
    const Model* evaluated = m_config.episodic ? nullptr : m_task->model.get();
    const RoundCloseTimes close = m_clock.CloseRound(*m_state.rule,
                                                     m_task->robust.type,
                                                     combined,
                                                     m_state.global.size(),
                                                     evaluated,
                                                     evaluated ? m_task->data->test.Size() : 0,
                                                     m_host.NowSeconds());
    if (m_levels)
    {
        // The round's loss reports (and for AdaGQ its aggregated update's norm) set the next
        // round's level.
        double norm = std::nan("");
        if (combined > 0)
        {
            double squares = 0.0;
            for (float v : m_state.combined)
            {
                squares += double(v) * double(v);
            }
            norm = std::sqrt(squares);
        }
        m_levels->RoundClosed(norm);
    }
    record.aggregateS = close.aggregateS;
    record.evaluateS = close.evaluateS;
    m_closed = record;
    if (close.ticks > 0)
    {
        m_closing = true;
        m_host.ArmTimer(CoordinatorTimer::RoundClose, close.ticks);
        return;
    }
    ReportRound();
}

void
RoundCoordinator::ReportRound()
{
    m_closed.endS = m_host.NowSeconds();
    m_host.RoundEnded(m_closed);

    if (m_config.episodic)
    {
        if (m_round >= m_episodeEnd)
        {
            m_host.EpisodeEnded();
            return;
        }
        StartRound();
        return;
    }
    if (m_round >= m_config.rounds)
    {
        m_host.Finished();
        return;
    }
    StartRound();
}

} // namespace fedran
