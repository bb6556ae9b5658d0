#pragma once
// One stage of a network: maps a batch [batch x inputs] to [batch x outputs] (one sample per row)
// and propagates gradients back.
//
// Parameters: a layer that has them uses ONE matrix [out x (fan-in + 1)] with the bias in the last
// column (Tensor.h), e.g. dense [out x (in + 1)], a convolution [C_out x (C_in*k*k + 1)]. The
// Network owns these matrices (optimizers update them in place) and passes them in; a layer
// without parameters (pooling) reports the shape 0 x 0 and receives empty matrices.
// Buffers: a layer creates a Workspace per pass (the Network keeps one for training and one for
// evaluation) and keeps everything backward needs in it, so calls reuse it and do not allocate.
#include "Tensor.h"

#include <memory>

namespace ml {

class Random;

class Layer {
public:
    // The buffers of one pass; each layer defines its own (only the layer that created it reads it).
    struct Workspace {
        virtual ~Workspace() = default;
    };
    struct Shape {
        Eigen::Index rows = 0;
        Eigen::Index cols = 0;
    };

    virtual ~Layer() = default;

    virtual Eigen::Index inputSize() const = 0;   // values per input sample
    virtual Eigen::Index outputSize() const = 0;  // values per output sample
    virtual Shape parameterShape() const = 0;     // {0, 0}: no parameters
    // How many consecutive weight columns belong to one input, i.e. form one fan-out group:
    // 1 for a dense layer, k*k for a convolution (an input channel's kernel positions).
    virtual Eigen::Index columnsPerInput() const { return 1; }
    // Glorot uniform weights drawn from `random` in row-major order, zero biases.
    virtual void initializeGlorotUniform(Matrix& parameters, Random& random) const = 0;

    virtual std::unique_ptr<Workspace> createWorkspace() const = 0;
    // The output for `input`, kept in `work` (valid until the next forward with `work`).
    virtual const BatchMatrix& forward(const Matrix& parameters, const BatchMatrix& input, Workspace& work) const = 0;
    // After forward(parameters, input, work): takes dL/d(output) in `outputGradient` (overwritten,
    // used as scratch), writes dL/d(parameters) into `parameterGradient` and, unless null,
    // dL/d(input) into `inputGradient`.
    virtual void backward(const Matrix& parameters, const BatchMatrix& input, BatchMatrix& outputGradient,
                          Workspace& work, Matrix& parameterGradient, BatchMatrix* inputGradient) const = 0;

    // Scratch for sampleGradientNormSquares, owned by the caller (diagnostics only, never training).
    struct SampleScratch {
        BatchMatrix patches;         // a convolution: one sample's im2col columns
        BatchMatrix sampleGradient;  // a convolution: one sample's kernel gradient
    };
    // Per row of the parameter matrix (a neuron, a convolution's output channel), the sum over the
    // batch of the squared norm of each sample's contribution c_s to dL/dparameters: `weights` over
    // the row's weights, `bias` its bias. The caller sizes both to the rows once.
    struct SampleNormSquares {
        Eigen::ArrayXf weights;
        Eigen::ArrayXf bias;
    };
    // After backward(..., outputGradient = `delta`, ...): writes `norms` (sum_s ||c_s||^2 per row),
    // the second moment behind the gradient signal-to-noise ratio (diagnostics/StepDiagnostics.h).
    // Returns false, leaving `norms` alone, for a layer that does not provide it.
    virtual bool sampleGradientNormSquares(const BatchMatrix& /*input*/, const BatchMatrix& /*delta*/,
                                           SampleScratch& /*scratch*/, SampleNormSquares& /*norms*/) const {
        return false;
    }
};

}  // namespace ml
