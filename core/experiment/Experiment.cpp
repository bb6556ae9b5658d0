#include "experiment/Experiment.h"

#include "InputError.h"
#include "io/MemoryBudget.h"
#include "data/DataRegistry.h"
#include "optim/OptimizerCatalog.h"
#include "experiment/RunLabels.h"

#include <algorithm>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <limits>
#include <cstdint>
#include <map>

namespace ml {

std::vector<std::pair<long, long>> layerMatrixShapes(const Experiment& experiment) {
    if (experiment.recorded.asBlocks) return experiment.recorded.matrixShapes();
    std::vector<std::pair<long, long>> shapes;
    const Network network(experiment.network);
    for (const Matrix& layer : network.parameters()) shapes.emplace_back(layer.rows(), layer.cols());
    return shapes;
}

std::vector<Eigen::Index> layerColumnsPerInput(const Experiment& experiment) {
    if (experiment.recorded.asBlocks) return experiment.recorded.columnsPerInput();
    return Network(experiment.network).columnsPerInput();
}

void checkLayerShapes(const Experiment& experiment, const Parameters& parameters, const std::string& source) {
    if (!experiment.recorded.asBlocks) return Network(experiment.network).checkShapes(parameters, source);
    const std::vector<RecordedLayer>& layers = experiment.recorded.layers;
    if (parameters.size() != layers.size())
        throw InputError(source + ": has " + std::to_string(parameters.size()) + " layers; the recorded model has " +
                         std::to_string(layers.size()));
    for (std::size_t l = 0; l < layers.size(); ++l)
        if (parameters[l].rows() != layers[l].rows() || parameters[l].cols() != layers[l].columns())
            throw InputError(source + ": layer " + std::to_string(l) + " is " + std::to_string(parameters[l].rows()) +
                             "x" + std::to_string(parameters[l].cols() - 1) + " (+bias); recorded layer " +
                             layers[l].text() + " is " + std::to_string(layers[l].rows()) + "x" +
                             std::to_string(layers[l].columns() - 1));
}

void Experiment::validate() const {
    if (recorded.asBlocks)
        throw InputError(
            "network: missing; recorded-layers describes a recorded model's layers, which the core "
            "does not train (give \"network\" to train a network)");
    if (network.layers.empty()) throw InputError("network: needs at least an input and an output size");
    if ((steps > 0) == (epochs > 0))
        throw InputError("steps/epochs: give exactly one of --steps N or --epochs N (N > 0)");
    const std::pair<const char*, long> counts[] = {{"steps", steps},
                                                   {"epochs", epochs},
                                                   {"batch", batchSize},
                                                   {"eval-every", evalEvery},
                                                   {"diagnostics-every", diagnosticsEvery},
                                                   {"curvature-every", curvatureEvery}};
    for (const auto& [field, value] : counts)
        if (value > kMaxCount)
            throw InputError(std::string(field) + ": " + std::to_string(value) + " is too large; expected at most " +
                             std::to_string(kMaxCount));
    if (batchSize < 0) throw InputError("batch: expected 0 (full batch) or a positive batch size");
    if (evalEvery < 0) throw InputError("eval-every: expected a whole number >= 0");
    if (runs.empty()) throw InputError("optimizer: no optimizer runs; give --optimizer NAME[,NAME...]");
    std::vector<std::string> labels;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        validateHyperParameters(runs[i].optimizer, runs[i].hp, "runs[" + std::to_string(i) + "]");
        requireFloat32HyperParameters(runs[i].optimizer, runs[i].hp, "runs[" + std::to_string(i) + "]");
        labels.push_back(runs[i].label);
    }
    checkRunFileNames(labels);  // labels name the run folders: no paths, no collisions
    // The data's size is not known yet: loadExperimentData checks again with it.
    requireTrainingWithinMemoryBudget(*this, 0);
}

namespace {

// The shortest text that reads back as the same value ("0.99999999", "1e-46", "0.99999994").
template <typename Real>
std::string shortestText(Real value) {
    char text[64];
    return std::string(text, std::to_chars(text, text + sizeof text, value).ptr);
}

}  // namespace

void requireFloat32Value(const ParameterField& field, double value, const std::string& context) {
    // Zero is exact, and what no float holds is the range check's (ParameterField::checkRange).
    if (field.kind != ParameterField::Kind::Real || value == 0.0 || !(std::fabs(value) <= FLT_MAX)) return;
    const float stored = static_cast<float>(value);
    const std::string prefix = context + ": " + shortestText(value) + " becomes " + shortestText(stored) +
                               " as a 32-bit float (what training computes with)";
    if (std::fabs(stored) < std::numeric_limits<float>::min())
        throw InputError(prefix + (stored == 0.0f ? "" : ", a subnormal float that keeps fewer digits") +
                         "; give 0 or a value of at least " + shortestText(std::numeric_limits<float>::min()));
    const double rounded = stored;
    const bool inside =
        rounded >= field.minimum && (field.maximumExclusive ? rounded < field.maximum : rounded <= field.maximum);
    if (inside) return;
    const float nearest =
        rounded < field.minimum  ? std::nextafter(static_cast<float>(field.minimum), std::numeric_limits<float>::max())
        : field.maximumExclusive ? std::nextafter(static_cast<float>(field.maximum), -std::numeric_limits<float>::max())
                                 : static_cast<float>(field.maximum);
    throw InputError(prefix + ", out of range; expected " + field.rangeText() + ", e.g. " + shortestText(nearest) +
                     ", the nearest float inside");
}

void requireFloat32HyperParameters(const std::string& optimizer, const HyperParameters& hp,
                                   const std::string& context) {
    for (const std::string& key : optimizerInfo(optimizer).parameters) {
        const ParameterField& field = *findParameterField(key);
        if (field.kind == ParameterField::Kind::Real)
            requireFloat32Value(field, field.getReal(hp), context + " --" + key);
    }
}

void requireTrainingWithinMemoryBudget(const Experiment& experiment, long trainSamples) {
    // Each run holds weights, gradients and up to three optimizer matrices (moments, update); the
    // trainer keeps the initial weights and builds one network more.
    const NetworkSpec& network = experiment.network;
    const std::uint64_t runs = experiment.runs.size();
    std::uint64_t bytes =
        saturatingProduct(saturatingProduct(network.parameterCount(), sizeof(Matrix::Scalar)), 5 * runs + 2);
    std::string what = "network " + network.text() + " (" + std::to_string(network.parameterCount()) +
                       " parameters; weights, gradients and optimizer state of " + std::to_string(runs) +
                       (runs == 1 ? " run" : " runs");
    if (trainSamples > 0) {
        // Each run's network has two passes of buffers: a training batch and an evaluation chunk.
        const long batch = experiment.batchSize == 0 ? trainSamples : std::min(experiment.batchSize, trainSamples);
        const long chunk = std::min<long>(trainSamples, EvaluationChunks::kChunkSize);
        const std::uint64_t pass = network.passBytes(static_cast<std::uint64_t>(batch)),
                            evaluation = network.passBytes(static_cast<std::uint64_t>(chunk));
        const std::uint64_t passes = pass > UINT64_MAX - evaluation ? UINT64_MAX : pass + evaluation;
        const std::uint64_t activations = saturatingProduct(passes, runs);
        bytes = activations > UINT64_MAX - bytes ? UINT64_MAX : bytes + activations;
        what += "; the activations and their gradients of a batch of " + std::to_string(batch) +
                (experiment.batchSize == 0 ? " (--batch 0: the whole training set)" : "") +
                " and of an evaluation chunk of " + std::to_string(chunk);
    }
    if (bytes > memoryBudgetBytes())
        throw InputError(what + ") needs " + byteSizeText(bytes) + ", more than the memory budget of " +
                         memoryBudgetText() + "; " + (trainSamples > 0 ? "a smaller batch needs less, " : "") +
                         "a larger " + kMemoryBudgetVariable + " allows more");
}

DataSplit loadExperimentData(const Experiment& experiment) {
    DataSplit data = applyHoldout(loadDataSplit(experiment.data, experiment.seed), experiment.holdout);
    if (data.train) requireTrainingWithinMemoryBudget(experiment, static_cast<long>(data.train->size()));
    return data;
}

void makeLabelsUnique(std::vector<RunSpec>& runs) {
    std::map<std::string, int> seen;
    for (RunSpec& run : runs) {
        const int count = ++seen[run.label];
        if (count > 1) run.label += "-" + std::to_string(count);
    }
}

}  // namespace ml
