#ifndef FEDRAN_MODELS_NS3_HELPER_LINK_SAMPLER_H
#define FEDRAN_MODELS_NS3_HELPER_LINK_SAMPLER_H

#include "models/ns3/helper/backhaul-helper.h"
#include "models/ns3/model/transport-topology.h"
#include "models/trace/csv-writer.h"

#include <ns3/packet.h>

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * links.csv: every `interval`, one row per link direction (columns in docs/traces.md), for the
 * directions it is given (BackhaulHelper::GetDirections, or a user's own list). Each
 * direction counts the bytes its link delivers (one addition per packet); a sample reads
 * those counters and the link's backlog, capacity and SNR probes, so a sample costs
 * O(links) whatever the traffic.
 */
class LinkSampler
{
  public:
    /// With `counters` (a transport that carries no packets), the bytes delivered are that
    /// transport's and every backlog is 0 (a fluid model has no queues).
    LinkSampler(const std::string& outDir,
                const std::vector<NamedLinkDirection>& directions,
                double intervalS,
                const TransportLinkCounters* counters = nullptr);

  private:
    struct Direction
    {
        std::string name;
        const InstalledLink* link = nullptr;
        LinkDirection direction = LinkDirection::Uplink;
        uint64_t bytes = 0;   ///< delivered since the last sample
        uint64_t counted = 0; ///< with counters: their reading at the last sample
    };

    void Sample();

    std::unique_ptr<fedran::CsvWriter> m_csv;
    std::vector<std::unique_ptr<Direction>> m_directions;
    double m_intervalS;
    const TransportLinkCounters* m_counters = nullptr;
};

} // namespace ns3

#endif
