#pragma once
// A network: layers "784-128-10" or "1x28x28-conv8k5-pool2-10" (NetworkSpec.h), a hidden
// activation, a loss.
//
// Layout: the Network is a sequence of Layer objects (nn/Layer.h) built from the NetworkSpec,
// one per token: DenseLayer, ConvLayer, PoolLayer; the last one (dense) linear; the loss
// (nn/Loss.h) follows the last layer. The Network owns
//   - the parameters: one [out x (fan-in + 1)] matrix per layer that has parameters, in layer order
//     (Tensor.h; used everywhere: optimizers, snapshots, files, views). Row j holds the incoming
//     connections of unit j and its last column holds the biases;
//   - two Passes of buffers (training, evaluation): each layer's own Workspace plus the gradient
//     with respect to each layer's output, so neither a step nor an evaluation allocates and an
//     evaluation does not resize the training buffers.
// Batches are [batch x features], one sample per row (an image's C x H x W values in that order).
// A new kind of layer is a new Layer class and a line where the constructor builds the sequence.
#include "Tensor.h"
#include "data/Dataset.h"
#include "data/EvaluationChunks.h"
#include "nn/Activation.h"
#include "nn/Layer.h"
#include "nn/Loss.h"
#include "nn/NetworkSpec.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ml {

struct Evaluation {
    float loss = 0.0f;
    float accuracy = 0.0f;  // fraction in [0,1]; NaN for regression data
};

class Network {
public:
    // Throws InputError when the parameters alone exceed the memory budget (io/MemoryBudget.h).
    explicit Network(NetworkSpec spec);

    const NetworkSpec& spec() const { return spec_; }
    int layerCount() const { return spec_.layerCount(); }
    // Per parameter matrix (in order): the weight columns per input, i.e. per fan-out group
    // (Layer::columnsPerInput: 1 dense, k*k conv). Optimizers take it with setColumnsPerInput.
    std::vector<Eigen::Index> columnsPerInput() const;
    Parameters& parameters() { return parameters_; }
    const Parameters& parameters() const { return parameters_; }
    // Throws InputError (naming `source`) when the shapes do not match the spec.
    void setParameters(const Parameters& parameters, const std::string& source);
    // Throws InputError (naming `source`, the layer and both shapes) unless `parameters` have
    // exactly this network's layer shapes: weights read from a file are checked before any use.
    void checkShapes(const Parameters& parameters, const std::string& source) const;

    // Glorot (Xavier) uniform weights U(-a, a), a = sqrt(6 / (in + out)); zero biases.
    void initializeGlorotUniform(std::uint64_t seed);

    // Forward and backward pass on one batch: returns the batch loss, writes dL/dparameters.
    float computeGradients(const Batch& batch, Parameters& gradients);
    // After computeGradients: for parameter matrix `index`, per row the sum over the batch of the
    // squared norms of the per-sample contributions to its gradient (Layer::sampleGradientNormSquares),
    // from the buffers the last training pass left. Returns the batch size, 0 (and `norms`
    // untouched) for a layer that does not provide it.
    Eigen::Index sampleGradientNormSquares(std::size_t index, Layer::SampleScratch& scratch,
                                           Layer::SampleNormSquares& norms) const;
    // Output pre-activations for a batch (valid until the next call).
    const BatchMatrix& forward(const BatchMatrix& inputs);
    // Every layer's output for a batch, in layer order, by the same forward pass: after the
    // layer's activation (conv, hidden dense), after pooling (pool), the last one linear. Each is
    // [batch x outputs of that layer], a sample's C x H x W values in channel-row-column order
    // (feature maps for the views; copies, so they stay valid).
    std::vector<BatchMatrix> layerOutputs(const BatchMatrix& inputs);
    // Loss and accuracy over a whole data set, in chunks. Evaluating the same data repeatedly (or
    // with several networks): convert it once into EvaluationChunks and pass those.
    Evaluation evaluate(const Dataset& data);
    Evaluation evaluate(const EvaluationChunks& data);

private:
    // The buffers of one kind of pass (training or evaluation).
    struct Pass {
        std::vector<std::unique_ptr<Layer::Workspace>> layers;  // one per layer
        std::vector<const BatchMatrix*> inputs;                 // the input of layer l during the last forward
        std::vector<BatchMatrix> outputGradients;               // dL/d(output of layer l)
        LossWorkspace loss;
    };
    Pass createPass() const;
    const BatchMatrix& forward(const BatchMatrix& inputs, Pass& pass);
    // The parameter matrix of layer l (an empty one for layers without parameters).
    const Matrix& parametersOf(std::size_t l) const;
    Matrix& gradientOf(std::size_t l, Parameters& gradients);

    NetworkSpec spec_;
    std::vector<std::unique_ptr<const Layer>> layers_;
    std::vector<int> parameterIndex_;  // layer l's entry in parameters_, -1 for none
    Parameters parameters_;
    Matrix noParameters_;  // stands in for the parameters (and their gradient) of layers without any
    Pass training_;
    Pass evaluation_;
};

}  // namespace ml
