#pragma once
// Small synthetic data sets ("toy:NAME"), generated from the experiment seed with ml::Random:
// the same seed gives the same samples everywhere. The training samples are drawn first, then
// the test samples, from one generator, so the two splits are independent draws.
//
//   toy:sine    regression, 1 input -> 1 output: x uniform in [-pi, pi], y = sin(x) (no noise).
//               200 train / 100 test.
//   toy:circle  2 inputs in [-1, 1]^2 (uniform), 2 classes: 1 inside the circle of radius 0.8
//               (about half of the square), 0 outside. 400 train / 200 test.
//   toy:xor     2 inputs in [-1, 1]^2 (uniform), 2 classes: 1 if x1 * x2 < 0 (the 2nd and 4th
//               quadrants), else 0. 400 train / 200 test.
//   toy:gauss   2 classes, alternating: normal blobs with standard deviation 0.6 around
//               (-0.8, -0.8) (class 0) and (0.8, 0.8) (class 1); they overlap a little.
//               400 train / 200 test.
//   toy:spiral  2 interleaved spirals, classes alternating: radius t, angle 3.5 pi t + class * pi
//               for t uniform in [0.05, 1], plus normal noise of 0.02 on each coordinate.
//               400 train / 200 test.
#include "Dataset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ml {

// The names after "toy:" ("sine", "circle", ...).
std::vector<std::string> toyDataNames();

// `name` is the part after "toy:". Unknown name: InputError listing the valid ones.
DataSplit makeToyData(const std::string& name, std::uint64_t seed);

}  // namespace ml
