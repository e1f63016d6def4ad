#ifndef FEDRAN_MODELS_FL_ADAGQ_POLICY_H
#define FEDRAN_MODELS_FL_ADAGQ_POLICY_H

// AdaGQ's bit-width rules (Liu, He, Cao, INFOCOM 2023), on QSGD levels s = 2^b - 1 (b bits per
// element, b = floor(log2 s) + 1), so that halving the level, s' = floor(s / 2), is one bit
// less.
//
// Mean bit width, by an online sign-of-derivative search: round k's loss decrease per second,
// R = (L_{k-1} - L_k) / T_k, T_k the round time; the clients also apply the update quantized
// at s' = floor(s / 2) (the probe) and report its loss L'_k, whose round time counts the
// upload at b' / b of the measured one: T'_k = T_k - (1 - b'/b) t_cm. If
// sign((R' - R) / (s - s')) = +1 the coarser level progressed faster per second: b-hat = b - 1,
// else b-hat = b + 1. Then the gradient-norm adjustment, in bits as the norm term is a log:
// b-bar_{k+1} = b-hat + lambda_g (log2 ||g_k|| - log2 ||g_{k-1}||), lambda_g = 1, so levels
// fall with the gradient norm. The first round starts at 8 bits.
//
// Per-client widths, equal finish times: E[t_cp,i] + b_i E[P / r_i] equal for all i, E[t_cp]
// the client's mean compute time, E[P / r] the last upload time per bit; the common finish is
// chosen so that the clients' mean level, mean(2^{b_i} - 1), equals 2^{b-bar} - 1.
// Only the rules live here: docs/adaptive-bitrate.md says what feeds them.

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

namespace fedran::control
{

struct AdagqRound
{
    double bits = 8.0;           ///< the round's mean bit width b
    double previousLoss = 0.0;   ///< L_{k-1}
    double loss = 0.0;           ///< L_k, after the update at b bits
    double probeLoss = 0.0;      ///< L'_k, after the update at b - 1 bits
    double roundS = 0.0;         ///< T_k
    double uploadS = 0.0;        ///< t_cm, the slowest client's upload in T_k
    double gradNorm = 0.0;       ///< ||g_k||
    double previousGradNorm = 0; ///< ||g_{k-1}|| (<= 0: no adjustment)
};

/// The next round's mean bit width b-bar_{k+1}, in [1, maxBits].
double AdagqNextMeanBits(const AdagqRound& round, double lambdaG, double maxBits);

/// The same search without the probe: the sign of dR/db estimated from the last two rounds
/// whose rates are known (the estimated-sign step of Han et al., ICDCS 2020, that AdaGQ
/// builds on), as the server runs it (adagq-server.h; docs/adaptive-bitrate.md says why).
struct AdagqMeasured
{
    double bits = 8.0;           ///< b-bar_k, the width the step starts from
    double rateBits = 0.0;       ///< the width of the latest round with a known rate
    double rate = NAN;           ///< its R (NaN: none known yet)
    double earlierBits = 0.0;    ///< the width of the round before it with a known rate
    double earlierRate = NAN;    ///< its R (NaN: none)
    double gradNorm = 0.0;       ///< ||g_k||
    double previousGradNorm = 0; ///< ||g_{k-1}|| (<= 0: no adjustment)
};

/**
 * b-bar_{k+1} = b-bar_k + step + lambda_g (log2 ||g_k|| - log2 ||g_{k-1}||), in [1, maxBits].
 * step: 0 without a known rate; -1 (the paper's probe direction, one bit less; +1 at 1 bit)
 * with one rate, or two at the same width; else -1 if (R - R_earlier) / (b - b_earlier) < 0
 * (fewer bits progressed faster per second), +1 otherwise, as the paper's sign test.
 */
double AdagqNextMeanBitsMeasured(const AdagqMeasured& round, double lambdaG, double maxBits);

struct AdagqClientTimes
{
    double computeS = 0.0;      ///< E[t_cp,i]
    double secondsPerBit = 0.0; ///< E[P / r_i]: last upload time / its bits per element
};

/// Integer bit widths in [1, maxBits] that finish together with mean level 2^{meanBits} - 1.
std::vector<uint32_t> AdagqClientBits(std::span<const AdagqClientTimes> clients,
                                      double meanBits,
                                      uint32_t maxBits);

} // namespace fedran::control

#endif
