#pragma once
// The validation split of a study: a fixed part of every data set's training split, so that tuning
// selects on data that the report's test figures never saw. It is one sixth of the training split
// (rounded to the nearest sample; at least one), always the same samples whatever the experiment
// seed (a fixed shuffle), and what remains of the training split trains. Sizes (train / validation
// / test): digits 1,197 / 240 / 360, mnist 6,667 / 1,333 / 2,000, fashion-mnist 50,000 / 10,000 /
// 10,000, iris 100 / 20 / 30, toy sets 333 / 67 / 200 (toy:sine 167 / 33 / 100).
#include "data/Dataset.h"

#include <cstdint>
#include <string>

namespace ml {

// What an experiment trains on and evaluates ("holdout" in the experiment JSON):
//   None        the whole training split trains, the test split evaluates (the default);
//   Validation  the training split minus the validation part trains, the validation part evaluates
//               (study tuning trials);
//   Test        the same training samples as Validation, the test split evaluates (study final runs).
enum class Holdout { None, Validation, Test };

std::string toString(Holdout holdout);  // "none", "validation", "test"
// Throws InputError naming `context` and the three words.
Holdout holdoutFromString(const std::string& text, const std::string& context);

// round(trainSize / 6), at least 1 (0 for an empty training split).
Eigen::Index validationSize(Eigen::Index trainSize);
// Seed of the validation shuffle: fixed, like the test split of real data.
inline constexpr std::uint64_t kValidationSplitSeed = 20240608;

// The split the holdout asks for. Throws InputError when the training split is too small to carve
// (fewer than two samples).
DataSplit applyHoldout(DataSplit data, Holdout holdout);

}  // namespace ml
