#ifndef FEDRAN_SIMULATOR_CORE_CLI_ERROR_H
#define FEDRAN_SIMULATOR_CORE_CLI_ERROR_H

#include <stdexcept>

namespace fedran
{

/// Input that the user must fix (a file, an option): the CLI reports it with exit status 2.
class BadInput : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

} // namespace fedran

#endif
