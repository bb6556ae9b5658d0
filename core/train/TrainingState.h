#pragma once
// A training-state file: one run at one step, with everything needed to continue it so that the
// continuation is bit-identical to never having stopped -- its weights, its optimizer's state
// (every buffer of optim/Optimizer.h's forEachStateBuffer and the step count of the bias
// corrections), the step and epoch, the data order and the shuffling stream's state. Written by
// `train --save-state-every N` (TrainingStateWriter) as RUN/state/step-K.json.gz, read by
// `train --fork-from RUN --at-step K` (LockstepTrainer::resumeFrom). Format: docs/guide/twin-runs.md.
#include "Tensor.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ml {

inline constexpr const char* kTrainingStateFormat = "momentum-lab training state";
inline constexpr int kTrainingStateVersion = 1;

struct TrainingState {
    QString source;  // the file it was read from, for messages
    // What it must match: the network (layers, activation, loss) and the training data and batches.
    std::string network, activation, loss, data;
    std::uint64_t seed = 0;
    long batchSize = 0;  // the effective batch (the whole training set for full batches)
    long trainSamples = 0;
    // Where it is.
    long step = 0;                        // the last step applied (the continuation starts at step + 1)
    int epoch = 0;                        // the epoch of that step
    std::vector<Eigen::Index> dataOrder;  // the current permutation of the training samples
    std::string shuffleState;             // the shuffling stream (Random::state())
    // The run.
    std::string label, optimizer;
    QJsonObject hyperParameters;  // the run's hyper-parameters (the keys its optimizer reads)
    long optimizerSteps = 0;      // the rule's step count t
    double wallMs = 0.0;
    Parameters parameters;
    // Per layer: the optimizer's non-empty state buffers by name (a vector buffer is [n x 1]).
    std::vector<std::map<std::string, Matrix>> optimizerBuffers;
};

QByteArray trainingStateToJson(const TrainingState& state);
// Checks the format, the version and every field's type and size (rows x cols values); throws
// InputError naming `source` and the field. Whether it fits an experiment is checked on resume.
TrainingState trainingStateFromJson(const QByteArray& json, const QString& source);

// gzip-compressed JSON, written atomically (io/Files.h). Throws FileError.
void writeTrainingStateFile(const QString& path, const TrainingState& state);
// Throws InputError naming the path (missing, truncated, corrupt, another version).
TrainingState readTrainingStateFile(const QString& path);

}  // namespace ml
