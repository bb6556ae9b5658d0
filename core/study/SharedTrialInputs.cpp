#include "study/SharedTrialInputs.h"

#include "data/DataRegistry.h"

namespace ml {

DataSplit SharedTrialInputs::data(const Experiment& experiment) {
    const auto key = std::make_tuple(experiment.data, dataDependsOnSeed(experiment.data) ? experiment.seed : 0,
                                     experiment.holdout);
    const std::lock_guard lock(mutex_);
    auto found = data_.find(key);
    if (found == data_.end()) found = data_.emplace(key, loadExperimentData(experiment)).first;
    return found->second;
}

Selection SharedTrialInputs::selection(int task, int optimizer) {
    const auto key = std::make_pair(task, optimizer);
    const std::lock_guard lock(mutex_);
    auto found = selections_.find(key);
    if (found == selections_.end())
        found = selections_.emplace(key, selectConfiguration(layout_.plan(), layout_, task, optimizer)).first;
    return found->second;
}

}  // namespace ml
