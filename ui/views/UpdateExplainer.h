#pragma once
// "What exactly did the rule do to this weight?": the clicked connection's update at the
// selection's step, taken apart (train/UpdateExplanation.h) for every shown run side by side.
// Bars (one colour per run): the gradient g, the connection's own first moment a' of the step
// before, its neuron's mean M(a'), the part carried into this step, the new first moment a, the
// adam denominator D on the left axis, and the update Δw on the right axis (lr times smaller).
// Below them each run's formula with this step's numbers. Its Play button is the comparison
// bar's (ComparisonBar, the step scrubber): playToggled asks it, showPlaying mirrors it.
//
// Public API
//   setRunSpecs(specs)         the selection's runs' optimizers, by run index (overlaid runs appended)
//   setConnection(layer, neuron, input)  the connection (input = column; bias = inputs); -1: none
//   setPlaying(on), playing()  asks the scrubber to play (playToggled); showPlaying(on) follows it
//   explanations()             what is shown, one per shown run (run index, explanation)
//   hasConnection(), unexplained()  a connection is chosen; why a shown run's update is not explained
//   plot(), formulas()
#include "experiment/Experiment.h"
#include "train/UpdateExplanation.h"
#include "model/RunSelection.h"

#include <QWidget>

#include <utility>
#include <vector>

class QCheckBox;
class QCPBarsGroup;
class QCustomPlot;
class QLabel;
class QPlainTextEdit;
class QToolButton;

namespace ml {

class UpdateExplainer : public QWidget {
    Q_OBJECT
public:
    explicit UpdateExplainer(RunSelection* selection, QWidget* parent = nullptr);

    void setRunSpecs(std::vector<RunSpec> specs);
    void appendRunSpecs(const std::vector<RunSpec>& specs);
    void setConnection(int layer, int neuron, int input);
    void setPlaying(bool playing);
    bool playing() const;
    void showPlaying(bool playing);

    const std::vector<std::pair<int, UpdateExplanation>>& explanations() const { return explanations_; }
    bool hasConnection() const { return column_ >= 0; }
    // Why a shown run's update at the step is not explained ("not saved in this folder", ...);
    // empty when every shown run's is.
    const QString& unexplained() const { return unexplained_; }
    QCustomPlot* plot() const { return plot_; }
    QPlainTextEdit* formulas() const { return formulas_; }

Q_SIGNALS:
    void playToggled(bool playing);

private:
    void refresh();
    void draw();
    void fitLegend();
    void resizeEvent(QResizeEvent* event) override;

    RunSelection* selection_;
    std::vector<RunSpec> specs_;
    std::vector<std::pair<int, UpdateExplanation>> explanations_;
    QString unexplained_;
    QCustomPlot* plot_ = nullptr;
    QCPBarsGroup* leftBars_ = nullptr;   // the parts, one bar per shown run
    QCPBarsGroup* rightBars_ = nullptr;  // the update
    QPlainTextEdit* formulas_ = nullptr;
    QLabel* title_ = nullptr;
    QToolButton* play_ = nullptr;
    QCheckBox* perRunScale_ = nullptr;
    int layer_ = -1, neuron_ = -1, column_ = -1;
};

}  // namespace ml
