#include "study/SharedTrialInputs.h"

#include "data/DataRegistry.h"

namespace ml {

SharedTrialInputs::Data SharedTrialInputs::data(const Experiment& experiment) {
    const auto key =
        std::make_tuple(experiment.data, dataDependsOnSeed(experiment.data) ? experiment.seed : 0, experiment.holdout);
    return data_.get(key, [&] {
        Data data{loadExperimentData(experiment), {}, {}};
        data.trainChunks = std::make_shared<const EvaluationChunks>(*data.split.train);
        if (data.split.test && data.split.test->size() > 0)
            data.testChunks = std::make_shared<const EvaluationChunks>(*data.split.test);
        return data;
    });
}

Selection SharedTrialInputs::selection(int task, int optimizer) {
    return selections_.get(std::make_pair(task, optimizer),
                           [&] { return selectConfiguration(layout_.plan(), layout_, task, optimizer); });
}

stats::TrialPoint SharedTrialInputs::tuningPoint(const StudyTrial& trial) {
    const std::vector<stats::TrialPoint> points =
        rounds_.get(std::make_tuple(trial.task, trial.optimizer, trial.round),
                    [&] { return roundPoints(layout_, trial.round, trial.task, trial.optimizer); });
    return points.at(trial.candidate - layout_.plan().firstCandidate(trial.round));
}

}  // namespace ml
