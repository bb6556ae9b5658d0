#pragma once
// The real data sets bundled in the core library as Qt resources (resources/data/, provenance in
// resources/README.md). Their splits use the fixed seed kFixedSplitSeed (Split.h), never the
// experiment seed, so every experiment is evaluated on the same test samples.
//
//   iris    Fisher's Iris: 150 flowers, 4 inputs, 3 classes. Stratified split: 40 train / 10
//           test per class = 120 / 30. Features are standardised with the training split's
//           per-feature mean and (population) standard deviation, applied to both splits.
//   digits  UCI optical digits: 1,797 8x8 images, pixels 0..16 (scaled by 1/16 when gathered),
//           10 classes. Shuffled split: 1,437 train / 360 test.
#include "Dataset.h"

namespace ml {

DataSplit loadIris();
DataSplit loadDigits();

}  // namespace ml
