// ClientSession's update for a round: the spread of a few gradients where an adaptive rule
// needs it, local training, local DP's clip and noise, then the encoding (masked for secure
// aggregation, layer by layer when pipelined, a rung chosen by the rate controller, or the
// fixed codec) with the reports the server reads off its end, framed. The session's state and
// the rest of its round are in client-session.cc.

#include "models/fl/adaptive-clip.h"
#include "models/fl/client-session.h"
#include "models/fl/downlink-rungs.h"
#include "models/fl/level-policy.h"
#include "models/fl/local-dp.h"
#include "models/fl/loss-poll.h"
#include "models/fl/loss-report.h"
#include "models/learning/gradient-spread.h"

#include <stdexcept>

namespace fedran
{

EncodedUpdate
ClientSession::TrainAndEncode(uint32_t round)
{
    if (m_controller && m_controller->NeedsError())
    {
        // Before training moves the parameters: the spread of a few minibatch gradients at
        // the start model, without the trajectory's drift (gradient-spread.h).
        const ClientExamples examples(*m_task, m_config.clientId);
        m_inputs.gradVariance = GradientSpread(*m_task->model,
                                               m_model,
                                               examples.Data(),
                                               examples.Rows(),
                                               m_task->training.batchSize,
                                               kGradientSpreadBatches,
                                               m_spreadRng);
    }
    const bool levelReport = m_controller && m_controller->ServerLed();
    if (levelReport)
    {
        m_reportLoss = ClientLoss(*m_task, m_config.clientId, m_model);
    }
    TrainingResult result = TrainSite(*m_task,
                                      m_config.clientId,
                                      m_model,
                                      round,
                                      m_codecs.UpdateEncoder().StepState(),
                                      m_trainRng,
                                      m_attack);
    // A selection policy's report is the training loss, unless a level policy reports the
    // loss of the round's model already (one report per update; docs/selection.md).
    if (!levelReport && SelectionReportsLoss())
    {
        m_reportLoss = result.meanLoss;
    }
    const DpConfig& dp = m_task->dp;
    if (dp.Local())
    {
        // Before the codec: everything sent from here on is post-processing of the noised
        // update (the scenario refuses codecs and reports that would see more).
        ClipAndNoise(result.update, dp.clipNorm, dp.noiseMultiplier * dp.clipNorm, m_dpRng);
    }
    // Adaptive clipping: whether the server will leave this update unclipped (the norm of
    // the update before the codec; the server clips the decoded one).
    std::optional<bool> unclipped;
    if (dp.AdaptiveClipping())
    {
        unclipped = UpdateNorm(result.update) <= m_clipNorm;
    }
    EncodedUpdate encoded;
    std::vector<uint8_t> payload;
    m_codecs.UpdateEncoder().BeginRound(round);
    if (m_secagg && m_secagg->Masking(round))
    {
        if (dp.Central())
        {
            // DP with secure aggregation: the server never sees an update to clip, so the
            // site clips its own (Flower's client-side fixed clipping); the server noises.
            ClipAndNoise(result.update, dp.clipNorm, 0.0, m_dpRng);
        }
        const std::vector<float> input =
            SecAggInput(round, std::move(result.update), encoded.record);
        result.update.clear();
        payload = m_secagg->MaskedInput(input, m_task->Examples(m_config.clientId));
        encoded.record.rawBytes = input.size() * sizeof(float);
    }
    else if (m_task->training.pipelining.layerwise)
    {
        const FrameHeader partHeader = MakeFrameHeader(FrameType::ClientUpdatePart,
                                                       m_codecs.UpdateEncoder().Id(),
                                                       round,
                                                       m_config.clientId,
                                                       m_task->Examples(m_config.clientId));
        encoded.parts = m_layerwise.Encode(round,
                                           result.update,
                                           ComputeSeconds(),
                                           partHeader,
                                           m_device,
                                           m_codecs,
                                           m_codecRng,
                                           encoded.record.encodeS);
        for (const EncodedPart& part : encoded.parts)
        {
            encoded.record.frameBytes += part.frame.size();
        }
    }
    else if (m_controller)
    {
        EncodeAdaptive(round, result, unclipped, payload, encoded.record);
    }
    else
    {
        // The update is not read again: a codec may keep its memory as state.
        encoded.record.rawBytes = result.update.size() * sizeof(float);
        m_codecs.UpdateEncoder().EncodeConsuming(m_task->model->Layout(),
                                                 std::move(result.update),
                                                 m_codecRng,
                                                 payload);
        AppendReports(payload, unclipped, SelectionReportsLoss());
        if (m_device.profile)
        {
            // Tensor partitioning spreads the encoding over the client's cores.
            encoded.record.encodeS = m_codecs.UpdateEncoder().EncodeSeconds(*m_device.profile,
                                                                            m_task->model->Layout(),
                                                                            payload) /
                                     m_device.speed / double(m_device.cores);
        }
    }
    const FrameHeader header = MakeFrameHeader(FrameType::ClientUpdate,
                                               m_codecs.UpdateEncoder().Id(),
                                               round,
                                               m_config.clientId,
                                               m_task->Examples(m_config.clientId));

    if (m_reportDownload && !m_task->training.pipelining.layerwise)
    {
        // Last, after any loss report: the server takes it off first (downlink-rungs.h).
        control::AppendDownloadReport(payload, m_downloadS);
        if (encoded.record.predictedPayloadBytes >= 0)
        {
            encoded.record.predictedPayloadBytes += control::kDownloadReportBytes;
        }
    }
    if (!m_task->training.pipelining.layerwise)
    {
        encoded.frame = EncodeFrame(header, payload);
        encoded.record.frameBytes = encoded.frame.size();
    }
    if (!m_task->downlinkClientView)
    {
        // The next model replaces this one whole: nothing to keep between rounds.
        std::vector<float>().swap(m_model);
    }
    encoded.record.round = round;
    encoded.record.client = m_config.clientId;
    if (encoded.record.rawBytes == 0)
    {
        encoded.record.rawBytes = result.update.size() * sizeof(float);
    }
    encoded.record.trainLoss = result.meanLoss;
    encoded.record.updateNorm = result.updateNorm;
    // The variance rule's own input where it has one (the start model's spread).
    encoded.record.gradVariance =
        m_controller && m_controller->NeedsError() ? m_inputs.gradVariance : result.gradVariance;
    encoded.record.codec = std::string(m_codecs.UpdateEncoder().Name());
    // Layerwise: the last bucket, the frame that completes the update.
    encoded.record.corrupted =
        m_faults.MaybeDamage(encoded.parts.empty() ? encoded.frame : encoded.parts.back().frame);
    return encoded;
}

double
ClientSession::FirstPartReadyS()
{
    return m_task->training.pipelining.layerwise
               ? m_layerwise.Parts(ComputeSeconds()).front().readyS
               : ComputeSeconds();
}

void
ClientSession::PartSent()
{
    m_unacknowledged.push_back(0); // a bucket before the last: no measurement of its own
}

void
ClientSession::AppendReports(std::vector<uint8_t>& payload,
                             std::optional<bool> unclipped,
                             bool report)
{
    if (unclipped)
    {
        AppendClipReport(payload, *unclipped);
    }
    if (report)
    {
        AppendLossReport(payload, m_reportLoss);
    }
}

void
ClientSession::EncodeAdaptive(uint32_t /* round */,
                              const TrainingResult& result,
                              std::optional<bool> unclipped,
                              std::vector<uint8_t>& payload,
                              UpdateSentRecord& record)
{
    // The controller's Decide touches only this client's lazy state, and m_inputs was
    // written before training started.
    const TensorLayout& layout = m_task->model->Layout();
    control::RoundInputs in = m_inputs;
    in.updateNorm = result.updateNorm;
    if (!m_controller->NeedsError())
    {
        in.gradVariance = result.gradVariance;
    }
    in.steps = result.steps;
    // Each rung the policy compares is encoded for real, on a copy of its state, once.
    const bool needError = m_controller->NeedsError();
    const CostProfile* profile = m_device.profile.get();
    std::vector<std::optional<RungProfile>> measured(m_ladder->RungCount());
    double trialSeconds = 0.0;
    auto measure = [&](size_t r) {
        if (!measured[r])
        {
            measured[r] = m_ladder->Trial(layout, r, result.update, m_codecRng, needError, profile);
            trialSeconds += measured[r]->seconds;
        }
        return *measured[r];
    };
    if (m_controller->ServerLed())
    {
        in.assignedRung = control::RungForLevel(m_rungLevels, m_assignedLevel);
    }
    const control::Decision decision = m_controller->Decide(in, measured.size(), measure);
    record.skipped = decision.skip;
    record.predictedBps = decision.predictedBps.value_or(-1.0);
    record.timeBudgetS = decision.timeBudgetS.value_or(-1.0);
    record.measuredBps = m_inputsMeasuredBps;
    const bool report = m_controller->ServerLed() || SelectionReportsLoss();
    if (decision.skip)
    {
        m_ladder->DiscardTrials();
        AppendReports(payload, unclipped, report); // the empty codec payload says "skip"
        return;
    }
    record.rung = static_cast<int>(decision.rung);
    // fixed compares nothing: its one encoding is the chosen rung's trial.
    record.predictedPayloadBytes =
        int64_t(kFrameHeaderSize + measure(decision.rung).payloadBytes +
                (report ? control::kLossReportPayloadBytes : 0) + (unclipped ? 1 : 0));
    m_ladder->Commit(decision.rung, payload, m_codecRng);
    AppendReports(payload, unclipped, report);
    if (m_controller->ServerLed())
    {
        record.codecLabel = "qsgd(s=" + std::to_string(m_rungLevels.at(decision.rung)) + ")";
    }
    if (m_device.profile)
    {
        // Every trial is work done before the upload: the chosen one is the encoding itself.
        record.encodeS = trialSeconds / m_device.speed / double(m_device.cores);
    }
}

} // namespace fedran
