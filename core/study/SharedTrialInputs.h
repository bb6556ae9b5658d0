#pragma once
// What the trials of one run of the study runner read and would otherwise each redo: the data
// (loaded once per data set, seed when the data depend on it, and holdout, and converted once for
// evaluation; read-only, so the trials share it as a comparison's runs do) and phase 1's choice
// for phase 2 (once per task and optimizer instead of re-reading every tuning trial's files for
// each seed), and each refining round's candidates. Thread-safe: the workers share one.
#include "data/Dataset.h"
#include "data/EvaluationChunks.h"
#include "data/ValidationSplit.h"
#include "study/OncePerKey.h"
#include "study/TuningRounds.h"
#include "experiment/Experiment.h"

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

namespace ml {

class SharedTrialInputs {
public:
    explicit SharedTrialInputs(const StudyLayout& layout) : layout_(layout) {}

    // loadExperimentData(experiment), loaded by the first trial that asks, with its halves
    // converted for evaluation (LockstepTrainer::shareEvaluationChunks). Throws InputError.
    struct Data {
        DataSplit split;
        std::shared_ptr<const EvaluationChunks> trainChunks, testChunks;  // testChunks null without a test half
    };
    Data data(const Experiment& experiment);
    // selectConfiguration for phase 2; an unfinished phase 1 throws (InputError) and is not kept,
    // so a later call reads the folders again.
    Selection selection(int task, int optimizer);
    // The point a tuning trial trains: its round's candidates planned once (roundPoints; an
    // unfinished earlier round throws InputError and is not kept).
    stats::TrialPoint tuningPoint(const StudyTrial& trial);

private:
    const StudyLayout& layout_;
    OncePerKey<std::tuple<std::string, std::uint64_t, Holdout>, Data> data_;
    OncePerKey<std::pair<int, int>, Selection> selections_;
    OncePerKey<std::tuple<int, int, int>, std::vector<stats::TrialPoint>> rounds_;  // [task, optimizer, round]
};

}  // namespace ml
