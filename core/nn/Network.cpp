#include "nn/Network.h"

#include "InputError.h"
#include "Random.h"

#include <cmath>
#include <algorithm>
#include <cctype>
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

Network::Network(NetworkSpec spec) : spec_(std::move(spec)) {
    for (int l = 0; l < spec_.layerCount(); ++l)
        parameters_.push_back(Matrix::Zero(spec_.sizes[l + 1], spec_.sizes[l] + 1));
    for (Workspace* work : {&training_, &evaluation_}) {
        work->preActivations.resize(spec_.layerCount());
        work->activations.resize(spec_.layerCount());
        work->deltas.resize(spec_.layerCount());
    }
}

void Network::setParameters(const Parameters& parameters, const std::string& source) {
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
    parameters_ = parameters;
}

void Network::initializeGlorotUniform(std::uint64_t seed) {
    Random random(seed);
    for (Matrix& layer : parameters_) {
        const float limit = std::sqrt(6.0f / static_cast<float>(layer.rows() + layer.cols() - 1));
        auto weights = weightsOf(layer);
        // Row by row, so the values do not depend on Eigen's storage order.
        for (Eigen::Index j = 0; j < weights.rows(); ++j)
            for (Eigen::Index i = 0; i < weights.cols(); ++i) weights(j, i) = random.uniform(-limit, limit);
        biasOf(layer).setZero();
    }
}

const Matrix& Network::forward(const Matrix& inputs, Workspace& work) {
    const Matrix* in = &inputs;
    const int last = layerCount() - 1;
    for (int l = 0; l <= last; ++l) {
        const Matrix& layer = parameters_[l];
        Matrix& z = work.preActivations[l];
        // [batch x in] * [in x out]: the product shape Eigen runs fastest here (README, Benchmark).
        z.noalias() = *in * weightsOf(layer).transpose();
        z.rowwise() += biasOf(layer).transpose();
        if (l < last) {
            applyActivation(spec_.activation, z, work.activations[l]);
            in = &work.activations[l];
        }
    }
    return work.preActivations[last];
}

const Matrix& Network::forward(const Matrix& inputs) { return forward(inputs, evaluation_); }

float Network::computeGradients(const Batch& batch, Parameters& gradients) {
    Workspace& work = training_;
    const Matrix& output = forward(batch.inputs, work);
    const float loss = lossAndGradient(spec_.loss, output, batch, work.deltas[layerCount() - 1], work.loss);
    for (int l = layerCount() - 1; l >= 0; --l) {
        const Matrix& in = l == 0 ? batch.inputs : work.activations[l - 1];
        const Matrix& delta = work.deltas[l];
        Matrix& gradient = gradients[l];
        weightsOf(gradient).noalias() = delta.transpose() * in;
        biasOf(gradient) = delta.colwise().sum().transpose();
        if (l == 0) break;
        Matrix& previous = work.deltas[l - 1];
        previous.noalias() = delta * weightsOf(parameters_[l]);
        multiplyByDerivative(spec_.activation, work.preActivations[l - 1], work.activations[l - 1], previous);
    }
    return loss;
}

Evaluation Network::evaluate(const Dataset& data) {
    constexpr Eigen::Index kChunk = 1024;
    double lossSum = 0.0;
    Eigen::Index correct = 0;
    const Eigen::Index n = data.size();
    for (Eigen::Index start = 0; start < n; start += kChunk) {
        const Eigen::Index count = std::min(kChunk, n - start);
        evaluationIndices_.resize(count);
        std::iota(evaluationIndices_.begin(), evaluationIndices_.end(), start);
        data.gather(evaluationIndices_, evaluationBatch_);
        const Matrix& output = forward(evaluationBatch_.inputs, evaluation_);
        Eigen::Index chunkCorrect = 0;
        const float chunkLoss =
            lossOnly(spec_.loss, output, evaluationBatch_, evaluation_.loss, chunkCorrect);
        lossSum += static_cast<double>(chunkLoss) * static_cast<double>(count);
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
