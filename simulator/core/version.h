#ifndef FEDRAN_SIMULATOR_CORE_VERSION_H
#define FEDRAN_SIMULATOR_CORE_VERSION_H

namespace fedran
{

/// The version compiled into this build ("0.1.0+<git describe>"), as run.json and
/// `fedran --version` give it.
const char* FedranVersion();

} // namespace fedran

#endif
