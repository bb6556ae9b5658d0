#include "nn/Network.h"

#include "InputError.h"
#include "Random.h"
#include "io/MemoryBudget.h"
#include "nn/DenseLayer.h"

#include <cmath>
#include <algorithm>
#include <cctype>
#include <limits>
#include <numeric>

namespace ml {

std::vector<int> NetworkSpec::parseSizes(const std::string& text, const std::string& field) {
    const auto refuse = [&] {
        return InputError(field + ": '" + text +
                          "' is not a network size; expected positive layer sizes joined by '-', "
                          "e.g. 1-2-2-1 or 784-128-10");
    };
    std::vector<int> sizes;
    std::size_t begin = 0;
    for (;;) {  // digits only between the dashes: "4-3-", " 4-3" and "+4-3" are refused
        const std::size_t end = std::min(text.find('-', begin), text.size());
        const std::string part = text.substr(begin, end - begin);
        if (part.empty() || part.size() > 6 || !std::all_of(part.begin(), part.end(), ::isdigit)) throw refuse();
        const int value = std::stoi(part);
        if (value <= 0 || value > 100000) throw refuse();
        sizes.push_back(value);
        if (end == text.size()) break;
        begin = end + 1;
    }
    if (sizes.size() < 2)
        throw InputError(field + ": '" + text + "' needs at least an input and an output size, e.g. 4-3");
    return sizes;
}

std::string NetworkSpec::sizesText() const {
    std::string text;
    for (std::size_t i = 0; i < sizes.size(); ++i) text += (i ? "-" : "") + std::to_string(sizes[i]);
    return text;
}

std::uint64_t NetworkSpec::parameterCount() const {
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t count = 0;
    for (int l = 0; l + 1 < static_cast<int>(sizes.size()); ++l) {
        // Each factor is below 2^31, so one product fits; only the sum can overflow.
        const std::uint64_t layer = (static_cast<std::uint64_t>(std::max(0, sizes[l])) + 1) * static_cast<std::uint64_t>(std::max(0, sizes[l + 1]));
        count = layer > kMax - count ? kMax : count + layer;
    }
    return count;
}

Network::Network(NetworkSpec spec) : spec_(std::move(spec)) {
    requireWithinMemoryBudget(saturatingProduct(spec_.parameterCount(), sizeof(Matrix::Scalar)),
                              "network " + spec_.sizesText() + " (" + std::to_string(spec_.parameterCount()) + " parameters)");
    const int last = spec_.layerCount() - 1;
    for (int l = 0; l <= last; ++l)
        layers_.push_back(std::make_unique<DenseLayer>(spec_.sizes[l], spec_.sizes[l + 1],
                                                       l < last ? spec_.activation : Activation::Identity));
    for (const auto& layer : layers_) {
        const Layer::Shape shape = layer->parameterShape();
        const bool hasParameters = shape.rows * shape.cols > 0;
        parameterIndex_.push_back(hasParameters ? static_cast<int>(parameters_.size()) : -1);
        if (hasParameters) parameters_.push_back(Matrix::Zero(shape.rows, shape.cols));
    }
    training_ = createPass();
    evaluation_ = createPass();
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
        throw InputError(source + ": has " + std::to_string(parameters.size()) + " layers; network " +
                         spec_.sizesText() + " has " + std::to_string(parameters_.size()));
    for (std::size_t l = 0; l < parameters.size(); ++l) {
        const Matrix& expected = parameters_[l];
        if (parameters[l].rows() != expected.rows() || parameters[l].cols() != expected.cols())
            throw InputError(source + ": layer " + std::to_string(l) + " is " +
                             std::to_string(parameters[l].rows()) + "x" +
                             std::to_string(parameters[l].cols() - 1) + " (+bias); network " +
                             spec_.sizesText() + " expects " + std::to_string(expected.rows()) + "x" +
                             std::to_string(expected.cols() - 1));
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
