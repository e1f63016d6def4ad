#include "models/fl/edge-aggregator.h"

#include <algorithm>

namespace fedran
{

EdgeAggregator::EdgeAggregator(EdgeAggregatorConfig config,
                               std::shared_ptr<const FederatedTask> task,
                               EdgeHost& host)
    : m_config(std::move(config))
    , m_task(std::move(task))
    , m_host(host)
    , m_parentCodecs(m_config.uplinkCodec, m_config.parentDownlinkCodec)
{
    m_config.tier.episodic = true;
    m_config.tier.codecStream = kEdgeCodecStreamBase + 2 * uint64_t{m_config.hub};
    CoordinatorHost& self = *this;
    m_tier = std::make_unique<RoundCoordinator>(m_config.tier, m_task, self);
    m_codecRng = Rng(m_task->seed, kEdgeCodecStreamBase + 2 * uint64_t{m_config.hub} + 1);
}

EdgeAggregator::~EdgeAggregator() = default;

void
EdgeAggregator::Start()
{
    m_tier->Start();
}

void
EdgeAggregator::Stop()
{
    m_tier->Stop();
}

bool
EdgeAggregator::Admits(uint32_t child) const
{
    return m_tier->Admits(child);
}

void
EdgeAggregator::OnChildJoin(uint32_t child)
{
    m_tier->OnJoin(child);
}

void
EdgeAggregator::OnChildLost(uint32_t child, UpdateFate fate, const std::string& why)
{
    m_tier->OnClientLost(child, fate, why);
}

std::optional<std::string>
EdgeAggregator::OnChildFrame(const Frame& frame)
{
    return m_tier->OnFrame(frame);
}

void
EdgeAggregator::OnTimer(CoordinatorTimer timer)
{
    m_tier->OnTimer(timer);
}

std::vector<uint8_t>
EdgeAggregator::BeginParentConnection()
{
    return EncodeJoinFrame(m_config.id);
}

std::optional<std::string>
EdgeAggregator::OnParentFrame(const Frame& frame)
{
    if (frame.header.client != m_config.id || frame.header.type != FrameType::GlobalModel ||
        frame.header.codec != m_parentCodecs.ModelId())
    {
        return "unexpected frame from the parent";
    }
    try
    {
        m_received.assign(m_task->model->Layout().TotalSize(), 0.0f);
        Codec& decoder = m_parentCodecs.ModelDecoder();
        decoder.BeginRound(frame.header.round); // as the parent's encoder was told
        decoder.Decode(m_task->model->Layout(), frame.payload, m_received);
    }
    catch (const DecodeError& e)
    {
        std::vector<float>().swap(m_received);
        return std::string("model from the parent: ") + e.what();
    }
    m_parentRound = frame.header.round;
    m_edgeRound = 0;
    m_tier->BeginEpisode(m_received, m_config.edgeRounds);
    return std::nullopt;
}

void
EdgeAggregator::EpisodeEnded()
{
    // One update for the whole subtree: what its edge rounds moved the parent's model by.
    const std::vector<float>& edge = m_tier->GlobalParams();
    std::vector<float> update(edge.size());
    for (size_t i = 0; i < edge.size(); ++i)
    {
        update[i] = edge[i] - m_received[i];
    }
    std::vector<float>().swap(m_received);
    std::vector<uint8_t> payload;
    Codec& encoder = m_parentCodecs.UpdateEncoder();
    encoder.BeginRound(m_parentRound);
    encoder.Encode(m_task->model->Layout(), update, m_codecRng, payload);
    m_host.SendToParent(EncodeFrame(MakeFrameHeader(FrameType::ClientUpdate,
                                                    encoder.Id(),
                                                    m_parentRound,
                                                    m_config.id,
                                                    m_config.subtreeSamples),
                                    payload));
}

double
EdgeAggregator::NowSeconds() const
{
    return m_host.NowSeconds();
}

void
EdgeAggregator::Send(uint32_t client, std::vector<uint8_t> frame)
{
    m_host.Send(client, std::move(frame));
}

void
EdgeAggregator::ArmTimer(CoordinatorTimer timer, int64_t delayTicks)
{
    m_host.ArmTimer(timer, delayTicks);
}

void
EdgeAggregator::CancelTimer(CoordinatorTimer timer)
{
    m_host.CancelTimer(timer);
}

uint32_t
EdgeAggregator::DrawInteger(uint32_t lo, uint32_t hi)
{
    return m_host.DrawInteger(lo, hi);
}

void
EdgeAggregator::JoinClosed(uint32_t joined, uint32_t expected)
{
    m_host.JoinClosed(joined, expected);
    m_host.ReadyForParent();
}

void
EdgeAggregator::RoundStarted(uint32_t round, const std::vector<uint32_t>& selected)
{
    ++m_edgeRound;
    m_selected = static_cast<uint32_t>(selected.size());
    m_uplinkBytes = 0;
    m_downlinkBytes = 0;
    m_host.RoundStarted(round, selected);
}

void
EdgeAggregator::FrameSent(uint32_t round,
                          uint32_t client,
                          uint64_t frameBytes,
                          const std::string& downlinkCodec)
{
    m_downlinkBytes += frameBytes;
    m_host.FrameSent(round, client, frameBytes, downlinkCodec);
}

void
EdgeAggregator::UpdateArrived(const UpdateArrivalRecord& record)
{
    if (record.fate != UpdateFate::Late)
    {
        m_uplinkBytes += record.frameBytes; // a late update counts in neither round
    }
    m_host.UpdateArrived(record);
}

void
EdgeAggregator::RoundEnded(const RoundRecord& record)
{
    m_host.RoundEnded(record);
    EdgeRoundRecord edge;
    edge.hub = m_config.hub;
    edge.round = m_parentRound;
    edge.edgeRound = m_edgeRound;
    edge.startS = record.startS;
    edge.endS = record.endS;
    edge.selected = m_selected;
    edge.participants = record.participants;
    edge.uplinkBytes = m_uplinkBytes;
    edge.downlinkBytes = m_downlinkBytes;
    m_host.EdgeRoundEnded(edge);
}

void
EdgeAggregator::Finished()
{
    // An episodic tier never finishes: the parent's last round ends the run.
}

} // namespace fedran
