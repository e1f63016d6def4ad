#include "models/fl-client-app.h"

#include <ns3/double.h>
#include <ns3/log.h>
#include <ns3/pointer.h>
#include <ns3/simulator.h>
#include <ns3/uinteger.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlClientApp");
NS_OBJECT_ENSURE_REGISTERED(FlClientApp);

TypeId
FlClientApp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlClientApp")
            .SetParent<Application>()
            .SetGroupName("Fedran")
            .AddConstructor<FlClientApp>()
            .AddAttribute("ClientId",
                          "Index of this client (and of its data partition).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlClientApp::m_clientId),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Server",
                          "Address (with port) of the FL server.",
                          AddressValue(),
                          MakeAddressAccessor(&FlClientApp::m_server),
                          MakeAddressChecker())
            .AddAttribute("SamplesPerSecond",
                          "Training speed: examples processed per simulated second.",
                          DoubleValue(2000.0),
                          MakeDoubleAccessor(&FlClientApp::m_samplesPerSecond),
                          MakeDoubleChecker<double>(1e-9))
            .AddAttribute("Transport",
                          "How messages cross the network.",
                          PointerValue(),
                          MakePointerAccessor(&FlClientApp::m_transport),
                          MakePointerChecker<MessageTransport>())
            .AddTraceSource("ModelReceived",
                            "A global model arrived and was decoded.",
                            MakeTraceSourceAccessor(&FlClientApp::m_modelReceivedTrace),
                            "ns3::FlClientApp::ModelReceivedCallback")
            .AddTraceSource("UpdateSent",
                            "An encoded update was handed to the network.",
                            MakeTraceSourceAccessor(&FlClientApp::m_updateSentTrace),
                            "ns3::FlClientApp::UpdateSentCallback");
    return tid;
}

FlClientApp::FlClientApp()
    : m_clientId(0),
      m_samplesPerSecond(2000.0)
{
}

FlClientApp::~FlClientApp() = default;

void
FlClientApp::SetTask(std::shared_ptr<const fedran::FederatedTask> task)
{
    m_task = std::move(task);
    NS_ABORT_MSG_IF(m_clientId >= m_task->partition.size(), "client id beyond the partition");
    m_modelDecoder = fedran::MakeCodec(m_task->downlinkCodec, "compression.downlink");
    m_updateEncoder = fedran::MakeCodec(m_task->uplinkCodec, "compression.uplink");
    m_trainRng = fedran::Rng(m_task->seed, fedran::kClientTrainStreamBase + m_clientId);
    m_codecRng = fedran::Rng(m_task->seed, fedran::kClientCodecStreamBase + m_clientId);
    m_model.assign(m_task->model->Layout().TotalSize(), 0.0f);
    m_delta.assign(m_model.size(), 0.0f);
}

void
FlClientApp::StartApplication()
{
    NS_ABORT_MSG_IF(!m_task, "FlClientApp: SetTask was not called");
    NS_ABORT_MSG_IF(!m_transport, "FlClientApp: no Transport");
    m_transport->Connect(GetNode(), m_server, MakeCallback(&FlClientApp::HandleConnected, this));
}

void
FlClientApp::StopApplication()
{
    m_sendEvent.Cancel();
    if (m_channel)
    {
        m_channel->Close();
    }
}

void
FlClientApp::DoDispose()
{
    m_channel = nullptr;
    m_transport = nullptr;
    m_task.reset();
    Application::DoDispose();
}

void
FlClientApp::HandleConnected(Ptr<MessageChannel> channel)
{
    m_channel = channel;
    m_channel->SetFrameCallback(MakeCallback(&FlClientApp::HandleFrame, this));
    m_channel->SetErrorCallback(MakeCallback(&FlClientApp::HandleChannelError, this));
    fedran::FrameHeader join;
    join.type = fedran::FrameType::Join;
    join.client = m_clientId;
    m_channel->Send(fedran::EncodeFrame(join, {}));
}

void
FlClientApp::HandleFrame(Ptr<MessageChannel> channel, const fedran::Frame& frame)
{
    if (frame.header.type != fedran::FrameType::GlobalModel ||
        frame.header.client != m_clientId || frame.header.codec != m_modelDecoder->Id())
    {
        HandleChannelError(channel, "unexpected frame from the server");
        return;
    }
    try
    {
        if (m_task->downlinkClientView)
        {
            // The frame carries global − (this client's copy).
            m_modelDecoder->Decode(m_task->model->Layout(), frame.payload, m_delta);
            for (size_t i = 0; i < m_model.size(); ++i)
            {
                m_model[i] += m_delta[i];
            }
        }
        else
        {
            m_modelDecoder->Decode(m_task->model->Layout(), frame.payload, m_model);
        }
    }
    catch (const fedran::DecodeError& e)
    {
        HandleChannelError(channel, std::string("cannot decode the global model: ") + e.what());
        return;
    }
    m_modelReceivedTrace(frame.header.round,
                         m_clientId,
                         fedran::kFrameHeaderSize + frame.payload.size());
    TrainAndSchedule(frame);
}

void
FlClientApp::TrainAndSchedule(const fedran::Frame& frame)
{
    const std::vector<uint32_t>& rows = m_task->partition[m_clientId];
    fedran::TrainingResult result = fedran::TrainLocal(*m_task->model,
                                                       m_model,
                                                       m_task->data->train,
                                                       rows,
                                                       m_task->training,
                                                       m_trainRng);

    std::vector<uint8_t> payload;
    m_updateEncoder->BeginRound(frame.header.round);
    m_updateEncoder->Encode(m_task->model->Layout(), result.update, m_codecRng, payload);
    fedran::FrameHeader header;
    header.type = fedran::FrameType::ClientUpdate;
    header.codec = m_updateEncoder->Id();
    header.round = frame.header.round;
    header.client = m_clientId;
    header.samples = static_cast<uint32_t>(rows.size());

    UpdateSentRecord record;
    record.round = frame.header.round;
    record.client = m_clientId;
    record.rawBytes = result.update.size() * sizeof(float);
    // Simulated compute: every local epoch passes over all of the client's examples.
    record.computeS =
        double(result.samples) * m_task->training.localEpochs / m_samplesPerSecond;
    record.trainLoss = result.meanLoss;
    record.codec = std::string(m_updateEncoder->Name());
    std::vector<uint8_t> bytes = fedran::EncodeFrame(header, payload);
    record.frameBytes = bytes.size();
    m_sendEvent = Simulator::Schedule(Seconds(record.computeS),
                                      &FlClientApp::SendUpdate,
                                      this,
                                      std::move(bytes),
                                      record);
}

void
FlClientApp::SendUpdate(std::vector<uint8_t> frame, UpdateSentRecord record)
{
    m_updateSentTrace(record);
    m_channel->Send(std::move(frame));
}

void
FlClientApp::HandleChannelError(Ptr<MessageChannel> channel, const std::string& why)
{
    NS_LOG_WARN("client " << m_clientId << ": " << why);
    m_sendEvent.Cancel();
    channel->Close();
}

} // namespace ns3
