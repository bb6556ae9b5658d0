#pragma once
// momentum-lab-cli study and aggregate: run a study (core/study) locally on N threads, list its
// trials as commands, run one trial, emit Slurm job-array scripts; recompute the statistics.
#include "cli/CommandTable.h"

namespace ml {

void addStudyCommands(CommandTable& table);

}  // namespace ml
