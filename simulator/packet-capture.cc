#include "simulator/packet-capture.h"

#include <ns3/callback.h>
#include <ns3/channel.h>
#include <ns3/pcap-file.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/simulator.h>
#include <ns3/trace-helper.h>

#include <stdexcept>

namespace ns3
{

namespace
{

void
WriteFrame(Ptr<PcapFileWrapper> file, Ptr<const Packet> packet)
{
    file->Write(Simulator::Now(), packet);
}

/// The device at the other end of `device`'s point-to-point channel.
Ptr<NetDevice>
Peer(Ptr<NetDevice> device)
{
    Ptr<Channel> channel = device->GetChannel();
    return channel->GetDevice(0) == device ? channel->GetDevice(1) : channel->GetDevice(0);
}

/// The sending device of a link direction named as in links.csv.
Ptr<NetDevice>
Sender(const StarTopology& topology, const std::string& direction)
{
    if (direction == "core-up")
    {
        return topology.GetCoreRouterDevice();
    }
    if (direction == "core-down")
    {
        return Peer(topology.GetCoreRouterDevice());
    }
    // client-<i>-up | client-<i>-down, checked by the scenario reader.
    const size_t dash = direction.rfind('-');
    const uint32_t client = std::stoul(direction.substr(7, dash - 7));
    return direction.substr(dash + 1) == "up" ? topology.GetClientDevice(client)
                                              : topology.GetRouterDevice(client);
}

} // namespace

PacketCapture::PacketCapture(const std::string& outDir,
                             const StarTopology& topology,
                             const std::vector<std::string>& directions,
                             bool flowmon)
    : m_outDir(outDir)
{
    PcapHelper pcap;
    for (const std::string& direction : directions)
    {
        if (!DynamicCast<PointToPointNetDevice>(Sender(topology, direction)))
        {
            continue; // an lte radio link carries no PPP frames (docs/links.md)
        }
        Ptr<PcapFileWrapper> file =
            pcap.CreateFile(outDir + "/" + direction + ".pcap", std::ios::out, PcapHelper::DLT_PPP);
        Sender(topology, direction)
            ->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&WriteFrame, file));
        m_files.push_back(file);
    }
    if (flowmon)
    {
        m_flowmon = m_flowmonHelper.InstallAll();
    }
}

void
PacketCapture::Finish()
{
    // The devices' trace sinks still hold the files until Simulator::Destroy: close them here
    // so every frame is on disk when the run's other outputs are.
    for (Ptr<PcapFileWrapper>& file : m_files)
    {
        file->Close();
    }
    m_files.clear();
    if (m_flowmon)
    {
        m_flowmon->CheckForLostPackets();
        m_flowmon->SerializeToXmlFile(m_outDir + "/flowmon.xml", false, false);
    }
}

} // namespace ns3
