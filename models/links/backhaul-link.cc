#include "models/links/backhaul-link.h"

#include "models/links/lte-link.h"
#include "models/links/microwave-link.h"
#include "models/links/point-to-point-link.h"
#include "models/links/trace-link.h"

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
        {"microwave", [] { return std::make_unique<MicrowaveLink>(); }},
        {"trace", [] { return std::make_unique<TraceLink>(); }},
        {"lte", [] { return std::make_unique<LteLink>(); }},
    };
    auto it = kModels.find(type);
    return it == kModels.end() ? nullptr : it->second();
}

void
CheckBackhaulLink(const fedran::LinkConfig& config)
{
    std::unique_ptr<BackhaulLink> model = MakeBackhaulLink(config.type);
    if (!model)
    {
        throw fedran::ScenarioError(config.path + ".type: unknown backhaul type \"" +
                                    config.type + "\"");
    }
    model->Check(config);
}

} // namespace ns3
