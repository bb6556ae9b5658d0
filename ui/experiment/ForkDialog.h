#pragma once
// "Fork here": which branches continue a run's state, and until which step. The branches are
// edited like the experiment's runs (RunListEditor); by default the run's own rule (which
// continues its optimizer state bit for bit) and, as the other, neuron-mean (or momentum when the
// run is neuron-mean) with the run's learning rate.
#include "experiment/Experiment.h"

#include <QDialog>

#include <vector>

class QSpinBox;

namespace ml {

class RunListEditor;

class ForkDialog : public QDialog {
    Q_OBJECT
public:
    // `source`: the run forked at `step`; `totalSteps`: where its training ends (the default end
    // when it lies ahead, else twice the fork step).
    ForkDialog(const RunSpec& source, long step, long totalSteps, QWidget* parent = nullptr);

    static std::vector<RunSpec> defaultBranches(const RunSpec& source);
    // The branches as edited; throws InputError naming the run and field.
    std::vector<RunSpec> branches() const;
    long untilStep() const;
    RunListEditor* editor() const { return editor_; }

private:
    RunListEditor* editor_;
    QSpinBox* until_;
};

}  // namespace ml
