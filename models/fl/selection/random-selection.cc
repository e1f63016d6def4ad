// server.selection "random" (the default): ceil(over_select x clients_per_round) idle clients
// uniformly without replacement (FedAvg, McMahan et al. 2017), drawn from the server's
// sampling stream exactly as before selection policies existed, so that runs keep their traces.

#include "models/fl/selection-policy.h"

#include <algorithm>

namespace fedran
{

namespace
{

class RandomSelection final : public SelectionPolicy
{
  public:
    Selection Select(const SelectionRequest& request) override
    {
        // Partial Fisher-Yates on the id-ordered list: the draw depends only on the stream.
        std::vector<uint32_t> idle = request.idle;
        const size_t k = std::min(request.wanted, idle.size());
        for (size_t i = 0; i < k; ++i)
        {
            const uint32_t j = request.drawInteger(static_cast<uint32_t>(i),
                                                   static_cast<uint32_t>(idle.size() - 1));
            std::swap(idle[i], idle[j]);
        }
        idle.resize(k);
        return Selection{std::move(idle), {}};
    }
};

} // namespace

std::unique_ptr<SelectionPolicy>
MakeRandomSelection(RuleArgs&, const SelectionContext&)
{
    return std::make_unique<RandomSelection>();
}

} // namespace fedran
