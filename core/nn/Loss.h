#pragma once
// Output losses.
//   mse:           linear output, L = mean over all batch x output elements of (y_hat - y)^2
//                  (PyTorch's MSELoss with reduction='mean'). Class labels become one-hot targets.
//   cross-entropy: softmax output, L = mean over the batch of -log p(label).
#include "data/Dataset.h"

#include <string>
#include <vector>

namespace ml {

enum class LossKind { Mse, CrossEntropy };

std::string toString(LossKind loss);
LossKind lossFromString(const std::string& name);  // throws InputError
std::vector<std::string> lossNames();

// Buffers a loss computation reuses between calls, so that a training step does not allocate.
struct LossWorkspace {
    BatchMatrix values;  // [batch x outputs]: the targets (mse) or the log-probabilities (cross-entropy)
    Vector perSample;    // [batch]: each row's maximum, then the log of its sum of exponentials
};

// Loss of the output-layer pre-activations `z` [batch x outputs] against the batch, and its
// gradient dL/dz into `gradient` (same shape).
float lossAndGradient(LossKind loss, const BatchMatrix& z, const Batch& batch, BatchMatrix& gradient,
                      LossWorkspace& work);
// Loss only (evaluation); `correct` receives the number of rows whose arg-max equals the label
// (classification data only, else 0).
float lossOnly(LossKind loss, const BatchMatrix& z, const Batch& batch, LossWorkspace& work, Eigen::Index& correct);

}  // namespace ml
