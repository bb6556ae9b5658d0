#include "nn/Network.h"

#include "InputError.h"
#include "Random.h"
#include "io/MemoryBudget.h"
#include "nn/ConvLayer.h"
#include "nn/DenseLayer.h"
#include "nn/PoolLayer.h"

#include <cmath>
#include <algorithm>
#include <cctype>
#include <limits>
#include <numeric>

namespace ml {

Network::Network(NetworkSpec spec) : spec_(std::move(spec)) {
    const std::vector<SampleShape> shapes = spec_.shapes();  // throws InputError naming a token that does not fit
    requireWithinMemoryBudget(
        saturatingProduct(spec_.parameterCount(), sizeof(Matrix::Scalar)),
        "network " + spec_.text() + " (" + std::to_string(spec_.parameterCount()) + " parameters)");
    SampleShape in = spec_.input;
    // A ReLU conv layer followed by max pooling: the pool applies the ReLU's derivative (PoolLayer's reluInput).
    const auto reluIntoMaxPool = [&](std::size_t conv) {
        return conv + 1 < spec_.layers.size() && spec_.layers[conv].kind == LayerToken::Kind::Conv &&
               spec_.activation == Activation::Relu && spec_.layers[conv + 1].kind == LayerToken::Kind::MaxPool;
    };
    for (std::size_t l = 0; l < spec_.layers.size(); ++l) {
        const LayerToken& token = spec_.layers[l];
        const Activation activation = l + 1 < spec_.layers.size() ? spec_.activation : Activation::Identity;
        switch (token.kind) {
        case LayerToken::Kind::Dense:
            layers_.push_back(std::make_unique<DenseLayer>(in.size(), token.size, activation));
            break;
        case LayerToken::Kind::Conv:
            layers_.push_back(std::make_unique<ConvLayer>(in, token, activation, reluIntoMaxPool(l)));
            break;
        case LayerToken::Kind::MaxPool:
            layers_.push_back(
                std::make_unique<PoolLayer>(in, token.kernel, PoolLayer::Kind::Max, l > 0 && reluIntoMaxPool(l - 1)));
            break;
        case LayerToken::Kind::AvgPool:
            layers_.push_back(std::make_unique<PoolLayer>(in, token.kernel, PoolLayer::Kind::Average));
            break;
        }
        in = shapes[l];
    }
    for (const auto& layer : layers_) {
        const Layer::Shape shape = layer->parameterShape();
        const bool hasParameters = shape.rows * shape.cols > 0;
        parameterIndex_.push_back(hasParameters ? static_cast<int>(parameters_.size()) : -1);
        if (hasParameters) parameters_.push_back(Matrix::Zero(shape.rows, shape.cols));
    }
    training_ = createPass();
    evaluation_ = createPass();
}

std::vector<Eigen::Index> Network::columnsPerInput() const {
    std::vector<Eigen::Index> columns;
    for (std::size_t l = 0; l < layers_.size(); ++l)
        if (parameterIndex_[l] >= 0) columns.push_back(layers_[l]->columnsPerInput());
    return columns;
}

Network::Pass Network::createPass() const {
    Pass pass;
    for (const auto& layer : layers_) pass.layers.push_back(layer->createWorkspace());
    pass.inputs.resize(layers_.size());
    pass.outputGradients.resize(layers_.size());
    return pass;
}

const Matrix& Network::parametersOf(std::size_t l) const {
    return parameterIndex_[l] < 0 ? noParameters_ : parameters_[static_cast<std::size_t>(parameterIndex_[l])];
}

Matrix& Network::gradientOf(std::size_t l, Parameters& gradients) {
    return parameterIndex_[l] < 0 ? noParameters_ : gradients[static_cast<std::size_t>(parameterIndex_[l])];
}

void Network::setParameters(const Parameters& parameters, const std::string& source) {
    checkShapes(parameters, source);
    parameters_ = parameters;
}

void Network::checkShapes(const Parameters& parameters, const std::string& source) const {
    if (parameters.size() != parameters_.size())
        throw InputError(source + ": has " + std::to_string(parameters.size()) + " layers; network " + spec_.text() +
                         " has " + std::to_string(parameters_.size()));
    for (std::size_t l = 0; l < parameters.size(); ++l) {
        const Matrix& expected = parameters_[l];
        if (parameters[l].rows() != expected.rows() || parameters[l].cols() != expected.cols())
            throw InputError(source + ": layer " + std::to_string(l) + " is " + std::to_string(parameters[l].rows()) +
                             "x" + std::to_string(parameters[l].cols() - 1) + " (+bias); network " + spec_.text() +
                             " expects " + std::to_string(expected.rows()) + "x" + std::to_string(expected.cols() - 1));
    }
}

void Network::initializeGlorotUniform(std::uint64_t seed) {
    Random random(seed);  // one stream through the layers in order
    for (std::size_t l = 0; l < layers_.size(); ++l)
        if (parameterIndex_[l] >= 0)
            layers_[l]->initializeGlorotUniform(parameters_[static_cast<std::size_t>(parameterIndex_[l])], random);
}

const BatchMatrix& Network::forward(const BatchMatrix& inputs, Pass& pass) {
    const BatchMatrix* in = &inputs;
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        pass.inputs[l] = in;
        in = &layers_[l]->forward(parametersOf(l), *in, *pass.layers[l]);
    }
    return *in;
}

const BatchMatrix& Network::forward(const BatchMatrix& inputs) { return forward(inputs, evaluation_); }

std::vector<BatchMatrix> Network::layerOutputs(const BatchMatrix& inputs) {
    const BatchMatrix& output = forward(inputs, evaluation_);
    std::vector<BatchMatrix> outputs;
    // The forward pass records each layer's input: layer l's output is layer l+1's input.
    for (std::size_t l = 1; l < layers_.size(); ++l) outputs.push_back(*evaluation_.inputs[l]);
    outputs.push_back(output);
    return outputs;
}

float Network::computeGradients(const Batch& batch, Parameters& gradients) {
    Pass& pass = training_;
    const BatchMatrix& output = forward(batch.inputs, pass);
    const std::size_t last = layers_.size() - 1;
    const float loss = lossAndGradient(spec_.loss, output, batch, pass.outputGradients[last], pass.loss);
    for (std::size_t l = last + 1; l-- > 0;) {
        BatchMatrix* inputGradient = l > 0 ? &pass.outputGradients[l - 1] : nullptr;  // none for the data
        layers_[l]->backward(parametersOf(l), *pass.inputs[l], pass.outputGradients[l], *pass.layers[l],
                             gradientOf(l, gradients), inputGradient);
    }
    return loss;
}

Eigen::Index Network::sampleGradientNormSquares(std::size_t index, Layer::SampleScratch& scratch,
                                                Layer::SampleNormSquares& norms) const {
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        if (parameterIndex_[l] != static_cast<int>(index)) continue;
        // backward() left dL/d(pre-activation) in the layer's output gradient.
        const BatchMatrix* input = training_.inputs[l];
        if (!input || !layers_[l]->sampleGradientNormSquares(*input, training_.outputGradients[l], scratch, norms))
            return 0;
        return input->rows();
    }
    return 0;
}

Evaluation Network::evaluate(const Dataset& data) { return evaluate(EvaluationChunks(data)); }

Evaluation Network::evaluate(const EvaluationChunks& data) {
    double lossSum = 0.0;
    Eigen::Index correct = 0;
    const Eigen::Index n = data.size();
    for (const Batch& chunk : data.chunks()) {
        const BatchMatrix& output = forward(chunk.inputs, evaluation_);
        Eigen::Index chunkCorrect = 0;
        const float chunkLoss = lossOnly(spec_.loss, output, chunk, evaluation_.loss, chunkCorrect);
        lossSum += static_cast<double>(chunkLoss) * static_cast<double>(chunk.size());
        correct += chunkCorrect;
    }
    Evaluation result;
    result.loss = n > 0 ? static_cast<float>(lossSum / static_cast<double>(n)) : NAN;
    result.accuracy = data.isClassification() && n > 0
                          ? static_cast<float>(static_cast<double>(correct) / static_cast<double>(n))
                          : NAN;
    return result;
}

}  // namespace ml
