#include "models/ns3/helper/link-sampler.h"

#include "models/trace/trace-schema.h"

#include <ns3/callback.h>
#include <ns3/simulator.h>

#include <cmath>
#include <optional>

namespace ns3
{

namespace
{

void
CountBytes(uint64_t* bytes, Ptr<const Packet> packet)
{
    *bytes += packet->GetSize();
}

} // namespace

LinkSampler::LinkSampler(const std::string& outDir,
                         const std::vector<NamedLinkDirection>& directions,
                         double intervalS,
                         const TransportLinkCounters* counters)
    : m_intervalS(intervalS)
    , m_counters(counters)
{
    m_csv = fedran::OpenTrace(outDir, "links.csv");
    for (const NamedLinkDirection& named : directions)
    {
        auto direction = std::make_unique<Direction>();
        direction->name = named.name;
        direction->link = named.link;
        direction->direction = named.direction;
        if (!m_counters)
        {
            named.link->ConnectDelivered(named.direction,
                                         MakeBoundCallback(&CountBytes, &direction->bytes));
        }
        m_directions.push_back(std::move(direction));
    }
    Simulator::Schedule(Seconds(m_intervalS), &LinkSampler::Sample, this);
}

void
LinkSampler::Sample()
{
    const double now = Simulator::Now().GetSeconds();
    for (auto& d : m_directions)
    {
        if (m_counters)
        {
            const uint64_t counted = m_counters->DeliveredBytes(d->link, d->direction);
            d->bytes = counted - d->counted;
            d->counted = counted;
        }
        m_csv->Add(now, 6)
            .Add(d->name)
            .Add(d->link->AvailableBpsOf(d->direction)) // 0 during a scripted outage
            .Add(static_cast<uint64_t>(std::llround(d->bytes * 8.0 / m_intervalS)));
        const std::optional<uint64_t> backlog =
            m_counters ? std::optional<uint64_t>(0) : d->link->QueuedBytes(d->direction);
        if (backlog)
        {
            m_csv->Add(*backlog);
        }
        else
        {
            m_csv->AddEmpty();
        }
        const double snr = d->link->SnrDb();
        if (std::isnan(snr))
        {
            m_csv->AddEmpty();
        }
        else
        {
            m_csv->Add(snr, 3);
        }
        m_csv->EndRow();
        d->bytes = 0;
    }
    m_csv->Flush();
    Simulator::Schedule(Seconds(m_intervalS), &LinkSampler::Sample, this);
}

} // namespace ns3
