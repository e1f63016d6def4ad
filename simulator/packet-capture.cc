#include "simulator/packet-capture.h"

#include "simulator/core/output-folder.h"

#include <ns3/callback.h>
#include <ns3/pcap-file.h>
#include <ns3/simulator.h>
#include <ns3/trace-helper.h>

namespace ns3
{

void
PacketCapture::File::Write(Ptr<const Packet> packet)
{
    file->Write(Simulator::Now(), packet);
}

PacketCapture::PacketCapture(const std::string& outDir,
                             const NetworkTopology& topology,
                             const std::vector<std::string>& directions,
                             bool flowmon)
    : m_outDir(outDir)
{
    PcapHelper pcap;
    for (const std::string& name : directions)
    {
        const NamedLinkDirection direction = topology.GetDirection(name);
        auto file = std::make_unique<File>();
        if (!direction.link->ConnectFrames(direction.direction,
                                           MakeCallback(&File::Write, file.get())))
        {
            continue; // a link without PPP frames (lte's radio link; docs/links.md)
        }
        fedran::RecordOutputFile(outDir, name + ".pcap");
        file->file =
            pcap.CreateFile(outDir + "/" + name + ".pcap", std::ios::out, PcapHelper::DLT_PPP);
        m_files.push_back(std::move(file));
    }
    if (flowmon)
    {
        fedran::RecordOutputFile(outDir, "flowmon.xml");
        m_flowmon = m_flowmonHelper.InstallAll();
    }
}

void
PacketCapture::Finish()
{
    // The devices' trace sinks still hold the files until Simulator::Destroy: close them here
    // so every frame is on disk when the run's other outputs are.
    for (std::unique_ptr<File>& file : m_files)
    {
        file->file->Close();
    }
    if (m_flowmon)
    {
        m_flowmon->CheckForLostPackets();
        m_flowmon->SerializeToXmlFile(m_outDir + "/flowmon.xml", false, false);
    }
}

} // namespace ns3
