#pragma once
// Hidden-layer activations, applied element-wise. The output layer is always linear; the loss
// decides what follows it (identity for mse, softmax for cross-entropy).
#include "Tensor.h"

#include <string>
#include <vector>

namespace ml {

enum class Activation { Identity, Sigmoid, Tanh, Relu };

std::string toString(Activation activation);
// Throws InputError naming the accepted names.
Activation activationFromString(const std::string& name);
std::vector<std::string> activationNames();

// a = f(z), in place into `out` (same shape as z).
void applyActivation(Activation activation, const BatchMatrix& z, BatchMatrix& out);
// delta *= f'(z), written in terms of the layer's output a = f(z) where that is cheaper.
void multiplyByDerivative(Activation activation, const BatchMatrix& z, const BatchMatrix& a, BatchMatrix& delta);
// The same on n consecutive values (one sample's row, while it is still in the cache); `a` may be
// null for Identity. The batch versions above call these on the whole matrix.
void applyActivation(Activation activation, const float* z, float* a, Eigen::Index n);
void multiplyByDerivative(Activation activation, const float* z, const float* a, float* delta, Eigen::Index n);

}  // namespace ml
