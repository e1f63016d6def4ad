#ifndef FEDRAN_MODELS_FL_SITE_TRAINING_H
#define FEDRAN_MODELS_FL_SITE_TRAINING_H

// What a site's local training in a round produces, as ClientSession runs it: an honest
// update from the site's own examples, or a Byzantine client's (clients.groups[].attack): a
// label_flip attacker trains on a copy of its examples with flipped labels, the others corrupt
// the trained update before the codec (byzantine-attack.h). A codec that acts at every local
// step (dgc's mode "step") rides on the trainer's steps.

#include "compression/codec.h"
#include "models/learning/byzantine-config.h"
#include "models/learning/collusion-oracle.h"
#include "models/learning/federated-task.h"
#include "models/learning/local-trainer.h"

#include <cstdint>
#include <span>

namespace fedran
{

/// Trains `client`'s share of `task` from `model` for `round`, drawing from `trainRng` (the
/// client's training stream); `stepState` is the uplink encoder's per-step state, or null.
/// `attack` (active from its start round) makes the update a Byzantine one, drawing from
/// `attackRng`; `collusion` is what colluders know of the round, or null.
TrainingResult TrainSite(const FederatedTask& task,
                         uint32_t client,
                         std::span<const float> model,
                         uint32_t round,
                         LocalStepState* stepState,
                         Rng& trainRng,
                         const AttackConfig& attack,
                         const CollusionRound* collusion,
                         Rng& attackRng);

} // namespace fedran

#endif
