#ifndef FEDRAN_SIMULATOR_CORE_CODEC_ROUND_TRIP_H
#define FEDRAN_SIMULATOR_CORE_CODEC_ROUND_TRIP_H

// One client's update crossing to a server and decoded there, outside any simulation: what
// `fedran codec` reports, what the run estimate sizes frames with, and the encoder and decoder
// `fedran calibrate` times. The server side is a decoder of its own (nothing but the payload
// crosses over) or, for a two-exchange codec (power_sgd), the server's round exchange: state,
// first payload, the server's message, reply.

#include "compression/codec-spec.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace fedran
{

/// Wall and CPU time of calls: on a shared host the wall time also counts waiting for a core,
/// the thread's CPU time does not (it does count the kernel's page faults).
struct CallTime
{
    double wall = 0.0; ///< seconds
    double cpu = 0.0;  ///< seconds of the calling thread's CPU time

    /// Runs `call`, adding its times.
    template<typename Call>
    void Add(Call call);
};

/// What one round trip sent and decoded.
struct RoundTrip
{
    /// Every byte the client sent: the update, or a two-exchange codec's first payload
    /// followed by its reply.
    std::vector<uint8_t> payload;
    uint64_t firstBytes = 0;    ///< of them, the first payload (all of them with one exchange)
    std::vector<float> decoded; ///< the server's result (empty unless decoded)
    CallTime encode;            ///< the client's work
    CallTime decode;            ///< the server's work
    uint64_t serverBytes = 0;   ///< a two-exchange codec's messages from the server

    /// The largest single payload the client sent: the first, or the reply.
    uint64_t LargestPayload() const
    {
        return std::max<uint64_t>(firstBytes, payload.size() - firstBytes);
    }
};

class CodecRoundTrip
{
  public:
    explicit CodecRoundTrip(const CodecSpec& spec);
    ~CodecRoundTrip();

    /// The client's encoder and the server's decoder (each made on first use).
    Codec& Encoder();
    Codec& Decoder();

    /// Round 1 of the encoder: `input` of `layout` encoded with the client's codec stream
    /// seeded with `seed` (a two-exchange server's too), and with `decode` the server's
    /// result. The encoder keeps its state (a second call is its second update). The encoder
    /// gets a copy of `input` through Codec::EncodeConsuming, as a client hands over its
    /// update; the copy is made before the encode's clock starts.
    RoundTrip Run(const TensorLayout& layout,
                  std::span<const float> input,
                  uint64_t seed,
                  bool decode = true);

  private:
    /// `slot`, made from the spec if it is empty.
    Codec& Made(std::unique_ptr<Codec>& slot);
    RoundTrip RunExchange(const TensorLayout& layout,
                          std::span<const float> input,
                          uint64_t seed,
                          bool decode);

    CodecSpec m_spec;
    std::unique_ptr<Codec> m_encoder;
    std::unique_ptr<Codec> m_decoder;
};

/// Seconds of CPU the calling thread has used.
double ThreadCpuSeconds();

template<typename Call>
void
CallTime::Add(Call call)
{
    const double cpuStart = ThreadCpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    call();
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    cpu += ThreadCpuSeconds() - cpuStart;
}

} // namespace fedran

#endif
