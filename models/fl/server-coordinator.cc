#include "models/fl/server-coordinator.h"

#include "models/fl/async-coordinator.h"
#include "models/fl/round-coordinator.h"

#include <string>

namespace fedran
{

void
CheckUpdateFrame(const Frame& frame, uint16_t uplinkCodecId)
{
    if (frame.header.codec != uplinkCodecId)
    {
        throw DecodeError("frame codec id " + std::to_string(frame.header.codec) +
                              " does not match the configured codec",
                          6);
    }
    if (frame.header.samples == 0)
    {
        throw DecodeError("update claims zero training samples", 16);
    }
}

std::unique_ptr<ServerCoordinator>
MakeServerCoordinator(CoordinatorConfig config,
                      std::shared_ptr<const FederatedTask> task,
                      CoordinatorHost& host)
{
    if (config.async)
    {
        return std::make_unique<AsyncCoordinator>(std::move(config), std::move(task), host);
    }
    return std::make_unique<RoundCoordinator>(std::move(config), std::move(task), host);
}

} // namespace fedran
