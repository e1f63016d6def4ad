#include "simulator/core/version.h"

#include "fedran-version.h"

namespace fedran
{

const char*
FedranVersion()
{
    return FEDRAN_VERSION;
}

} // namespace fedran
