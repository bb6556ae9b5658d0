#include "study/SharedTrialInputs.h"

#include "data/DataRegistry.h"

namespace ml {

DataSplit SharedTrialInputs::data(const Experiment& experiment) {
    const auto key = std::make_tuple(experiment.data, dataDependsOnSeed(experiment.data) ? experiment.seed : 0,
                                     experiment.holdout);
    return data_.get(key, [&] { return loadExperimentData(experiment); });
}

Selection SharedTrialInputs::selection(int task, int optimizer) {
    return selections_.get(std::make_pair(task, optimizer),
                           [&] { return selectConfiguration(layout_.plan(), layout_, task, optimizer); });
}

}  // namespace ml
