#include "models/links/backhaul-link.h"

#include "models/links/point-to-point-link.h"

#include <functional>
#include <map>

namespace ns3
{

std::unique_ptr<BackhaulLink>
MakeBackhaulLink(const std::string& type)
{
    // One line per link model.
    static const std::map<std::string, std::function<std::unique_ptr<BackhaulLink>()>> kModels = {
        {"p2p", [] { return std::make_unique<PointToPointLink>(); }},
    };
    auto it = kModels.find(type);
    return it == kModels.end() ? nullptr : it->second();
}

} // namespace ns3
