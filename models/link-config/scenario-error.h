#ifndef FEDRAN_MODELS_LINK_CONFIG_SCENARIO_ERROR_H
#define FEDRAN_MODELS_LINK_CONFIG_SCENARIO_ERROR_H

#include <stdexcept>

namespace fedran
{

/**
 * A scenario that cannot be run as written: its message names the JSON path
 * ("clients.groups.0.backhaul.file: ..."), or the file and line. The scenario reader and the
 * link models' checks throw it; the CLI maps it to exit status 2.
 */
class ScenarioError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

} // namespace fedran

#endif
