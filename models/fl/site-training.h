#ifndef FEDRAN_MODELS_FL_SITE_TRAINING_H
#define FEDRAN_MODELS_FL_SITE_TRAINING_H

// What a site's local training in a round produces, as ClientSession runs it: an honest
// update from the site's own examples, or a Byzantine client's (clients.groups[].attack): a
// label_flip attacker trains on a copy of its examples with flipped labels, the others corrupt
// the trained update before the codec (byzantine-attack.h). A codec that acts at every local
// step (dgc's mode "step") rides on the trainer's steps.

#include "compression/codec.h"
#include "models/fl/byzantine-config.h"
#include "models/fl/collusion-oracle.h"
#include "models/fl/federated-task.h"
#include "models/learning/local-trainer.h"

#include <cstdint>
#include <memory>
#include <span>

namespace fedran
{

/// A site's attack (clients.groups[].attack of its group; type empty: honest), the stream it
/// draws from, and a colluding attacker's view of the round it trains for.
struct SiteAttack
{
    SiteAttack(const FederatedTask& task, uint32_t client);

    /// The model of `round` has arrived: a colluding attacker takes its view of the round (on
    /// the simulation's thread, while the round is surely known).
    void ModelArrived(const FederatedTask& task, uint32_t round);

    AttackConfig config;
    Rng rng;
    std::shared_ptr<const CollusionRound> collusion; ///< until the round's training is done
};

/// Trains `client`'s share of `task` from `model` for `round`, drawing from `trainRng` (the
/// client's training stream); `stepState` is the uplink encoder's per-step state, or null.
/// `attack`, active from its start round, makes the update a Byzantine one.
TrainingResult TrainSite(const FederatedTask& task,
                         uint32_t client,
                         std::span<const float> model,
                         uint32_t round,
                         LocalStepState* stepState,
                         Rng& trainRng,
                         SiteAttack& attack);

} // namespace fedran

#endif
