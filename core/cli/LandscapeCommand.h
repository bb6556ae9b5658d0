#pragma once
// momentum-lab-cli landscape: the loss surface on one plane shared by a run folder's runs, their
// projected trajectories and the slice between two runs (core/landscape, docs/guide/landscape.md).
#include "cli/CommandTable.h"

namespace ml {

void addLandscapeCommand(CommandTable& table);

}  // namespace ml
