#ifndef FEDRAN_MODELS_NS3_MODEL_FLOW_TCP_SETTINGS_H
#define FEDRAN_MODELS_NS3_MODEL_FLOW_TCP_SETTINGS_H

// The TCP the flow transport models, read from ns-3's attribute defaults: the packet mode's
// settings, which ConfigureBackhaulTcp (models/ns3/helper/tcp-settings.h) sets as defaults, so
// that both modes run the same TCP and no parameter of the flow model is fitted.

#include "models/flow/micro-tcp.h"
#include "models/flow/tcp-flow-model.h"

namespace ns3
{

/// Segment size, initial window, delayed ACKs and socket buffers (ns3::TcpSocket).
fedran::TcpFlowSettings FlowTcpFromDefaults();

/// The port micro-simulation's TCP for `tcp`: ns3::TcpSocketBase's loss recovery and RTO
/// settings, ns3::TcpSocket's delayed-ACK timeout and ns3::TcpCubic's attributes.
fedran::MicroTcpSettings MicroTcpFromDefaults(const fedran::TcpFlowSettings& tcp);

} // namespace ns3

#endif
