#pragma once
// A fully connected network: sizes "784-128-10", a hidden activation, a loss.
//
// Parameter layout (used everywhere: optimizers, snapshots, files, views): layer l is ONE matrix
// of shape [out x (in + 1)]. Row j holds the incoming connections of neuron j (W is [out x in],
// so W(j, i) connects input i to neuron j) and its last column holds the biases.
// Batches are [batch x features] row blocks; the forward pass is Z = A * W^T + b.
#include "Tensor.h"
#include "data/Dataset.h"
#include "nn/Activation.h"
#include "nn/Loss.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ml {

struct NetworkSpec {
    std::vector<int> sizes{1, 2, 2, 1};
    Activation activation = Activation::Tanh;
    LossKind loss = LossKind::Mse;

    // "1-2-2-1": at least two positive sizes. Throws InputError naming `field`.
    static std::vector<int> parseSizes(const std::string& text, const std::string& field = "--network");
    std::string sizesText() const;
    int layerCount() const { return static_cast<int>(sizes.size()) - 1; }
    int inputs() const { return sizes.front(); }
    int outputs() const { return sizes.back(); }
};

struct Evaluation {
    float loss = 0.0f;
    float accuracy = 0.0f;  // fraction in [0,1]; NaN for regression data
};

class Network {
public:
    explicit Network(NetworkSpec spec);

    const NetworkSpec& spec() const { return spec_; }
    int layerCount() const { return spec_.layerCount(); }
    Parameters& parameters() { return parameters_; }
    const Parameters& parameters() const { return parameters_; }
    // Throws InputError (naming `source`) when the shapes do not match the spec.
    void setParameters(const Parameters& parameters, const std::string& source);

    // Glorot (Xavier) uniform weights U(-a, a), a = sqrt(6 / (in + out)); zero biases.
    void initializeGlorotUniform(std::uint64_t seed);

    // Forward and backward pass on one batch: returns the batch loss, writes dL/dparameters.
    float computeGradients(const Batch& batch, Parameters& gradients);
    // Output pre-activations for a batch (valid until the next call).
    const Matrix& forward(const Matrix& inputs);
    // Loss and accuracy over a whole data set, in chunks.
    Evaluation evaluate(const Dataset& data);

private:
    // Per-layer buffers reused between calls, so a training step does not allocate.
    struct Workspace {
        std::vector<Matrix> preActivations;  // Z_l, [batch x out_l]
        std::vector<Matrix> activations;     // A_l = f(Z_l); the last one is unused (output is Z)
        std::vector<Matrix> deltas;          // dL/dZ_l, one buffer per layer so none is ever resized
        LossWorkspace loss;
    };
    const Matrix& forward(const Matrix& inputs, Workspace& work);

    NetworkSpec spec_;
    Parameters parameters_;
    Workspace training_;
    Workspace evaluation_;
    Batch evaluationBatch_;
    std::vector<Eigen::Index> evaluationIndices_;
};

}  // namespace ml
