#ifndef FEDRAN_MODELS_FL_SERVER_CLOCK_H
#define FEDRAN_MODELS_FL_SERVER_CLOCK_H

// The server's computation on the simulated clock (server.compute), the same in synchronous
// rounds and asynchronous steps: decoding and folding in each update as it arrives, in arrival
// order on the earliest free of its cores; then applying the combined update and evaluating
// the new model. Without a cost profile every cost is 0 and nothing waits.

#include "compression/codec.h"
#include "models/fl/aggregation-rule.h"
#include "models/fl/federated-task.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace fedran
{

/// Where the time of closing a round (or an asynchronous step) goes on the server clock.
struct RoundCloseTimes
{
    double aggregateS = 0.0; ///< combining the updates and applying the result
    double evaluateS = 0.0;  ///< evaluating the new model
    int64_t ticks = 0;       ///< host ticks from now until the round closes; 0: at once
};

class ServerClock
{
  public:
    /// `compute`: the server's cores, speed and profile; `ticksPerSecond`: the host's.
    ServerClock(const DeviceCompute& compute, double ticksPerSecond);

    /// Server seconds of `referenceS` reference-machine seconds (0 without a profile).
    double Seconds(double referenceS) const;
    /// Decoding `payload` with `codec`'s cost model, plus folding it in if `fold`.
    double DecodeSeconds(const Codec& codec,
                         const TensorLayout& layout,
                         std::span<const uint8_t> payload,
                         bool fold) const;
    /// Folding one decoded update of `elements` values into the aggregate.
    double FoldSeconds(uint64_t elements) const;
    /// Applying a combined update of `elements` values to the model.
    double ApplySeconds(uint64_t elements) const;
    /// Combining `count` updates of `size` floats with `rule` (server.robust.type `name`:
    /// its AggregationRule::ResultWork priced by the profile's server.rules.<name>, nothing
    /// for a rule that folds as updates arrive), then applying the result. Throws
    /// std::invalid_argument if the profile has no price for work it must charge (the
    /// scenario check refuses such a run first).
    double AggregateSeconds(const AggregationRule& rule,
                            const std::string& name,
                            size_t count,
                            size_t size) const;
    /// Evaluating `model` on `examples` test examples, data-parallel over the cores.
    double EvaluateSeconds(const Model& model, uint64_t examples) const;
    /// Closing a round (or an asynchronous step: the same work) whose model is computed at
    /// `nowS`: on the simulated clock the server first finishes what it queued, then combines
    /// `combined` updates of `size` values with `rule` (server.robust.type `name`) and applies
    /// the result (nothing without an update), then evaluates `model` on `examples` test
    /// examples (nothing without a model: an edge aggregator's episodic rounds), and only
    /// then does the round end. Throws as AggregateSeconds.
    RoundCloseTimes CloseRound(const AggregationRule& rule,
                               const std::string& name,
                               size_t combined,
                               size_t size,
                               const Model* model,
                               uint64_t examples,
                               double nowS) const;
    /// A two-exchange codec's work between the phases (power_sgd's orthonormalisation).
    double CloseSeconds(const Codec& codec, const TensorLayout& layout) const;

    /// Queues `seconds` of work arriving at `nowS` on the earliest free core; returns when it
    /// is done.
    double Queue(double seconds, double nowS);
    /// Work that waits for everything queued and holds every core: returns when it is done.
    double QueueBarrier(double seconds, double nowS);
    /// When the last queued work ends.
    double BusyUntil() const
    {
        return m_busyUntilS;
    }

    /// Host ticks from `nowS` until `atS` (0 if it has passed).
    int64_t TicksUntil(double atS, double nowS) const;

  private:
    DeviceCompute m_compute;
    double m_ticksPerSecond;
    std::vector<double> m_coreFreeS; ///< when each core is free again
    double m_busyUntilS = 0.0;
};

} // namespace fedran

#endif
