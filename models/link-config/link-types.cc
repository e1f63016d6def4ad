#include "models/link-config/link-types.h"

namespace fedran
{

namespace
{

// One line per link model (its class registers in models/ns3/model/backhaul-link.cc).
constexpr LinkTypeTraits kLinkTypes[] = {
    {"p2p", "", false, "", true},
    {"microwave", "", false, ""},
    {"trace", "", false, ""},
    {"lte", "a UE does not route a network behind it; use p2p, microwave or trace", true, ""},
};

// The transports: one line each (name, MessageTransport TypeId, traits).
constexpr TransportTraits kTransports[] = {
    {"tcp", "ns3::TcpMessageTransport", true, "", false},
    {"flow",
     "ns3::FlowMessageTransport",
     false,
     "the flow model has one TCP: fair shares with slow start from the initial window",
     true},
};

template<typename Traits, size_t N>
const Traits*
Find(const Traits (&table)[N], std::string_view name)
{
    for (const Traits& entry : table)
    {
        if (entry.name == name)
        {
            return &entry;
        }
    }
    return nullptr;
}

template<typename Traits, size_t N>
std::vector<std::string_view>
Names(const Traits (&table)[N])
{
    std::vector<std::string_view> names;
    for (const Traits& entry : table)
    {
        names.push_back(entry.name);
    }
    return names;
}

} // namespace

const LinkTypeTraits*
FindLinkType(std::string_view type)
{
    return Find(kLinkTypes, type);
}

const TransportTraits*
FindTransport(std::string_view name)
{
    return Find(kTransports, name);
}

std::vector<std::string_view>
LinkTypeNames()
{
    return Names(kLinkTypes);
}

std::vector<std::string_view>
TransportNames()
{
    return Names(kTransports);
}

} // namespace fedran
