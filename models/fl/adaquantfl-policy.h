#ifndef FEDRAN_MODELS_FL_ADAQUANTFL_POLICY_H
#define FEDRAN_MODELS_FL_ADAQUANTFL_POLICY_H

// AdaQuantFL's quantization-level rule (Jhunjhunwala, Gadhikar, Joshi, Eldar, ICASSP 2021),
// on QSGD levels s, one for all clients: s_k = ceil(sqrt(F_0 / F_k) s_0), F the global
// training loss at the round's start (round 1 gives F_0), s_0 = 2 (the DAdaQuant reference
// code's form and default). Coarse levels lower the loss cheaply early; the level rises as
// the loss falls. Only the rule lives here: docs/adaptive-bitrate.md says what feeds it.

#include <cstdint>
#include <optional>

namespace fedran::control
{

/// Bytes a client sends to report its loss: one float32, the input of the global loss.
constexpr uint64_t kLossReportPayloadBytes = 4;

class AdaquantflSchedule
{
  public:
    /// `cap`: the largest level the codec carries.
    AdaquantflSchedule(uint32_t s0, uint32_t cap);

    /// Feeds round k's global loss F_k and returns that round's level s_k. A loss that is not
    /// positive and finite keeps the previous level (s_0 before any).
    uint32_t Next(double loss);

  private:
    uint32_t m_s0;
    uint32_t m_cap;
    std::optional<double> m_f0;
    uint32_t m_level;
};

} // namespace fedran::control

#endif
