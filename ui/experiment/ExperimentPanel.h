#pragma once
// The experiment editor (a dock): preset chooser, network, activation, loss, data set, seed,
// batch size, length (steps or epochs), evaluation interval, and the optimizer runs.
// experiment() builds the Experiment value and validates it (throws InputError naming the field
// as the form labels it). A bad network or data set is marked in its field when it is left;
// choosing another data set sets the network's input and output sizes to the data's, and a hint
// under it offers, with one click, what the data set needs and the fields lack: cross-entropy for
// class labels (mse for regression), mini-batches of 64 instead of the full batch for more than
// 1,000 training samples, a hidden layer of 32 (128 from 256 inputs) instead of layers narrower
// than 16 for 64 inputs or more. The hint follows the fields and goes when they agree.
#include "data/Dataset.h"
#include "experiment/Experiment.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QToolButton;

namespace ml {

class RunListEditor;
class SeedSpinBox;

class ExperimentPanel : public QWidget {
    Q_OBJECT
public:
    explicit ExperimentPanel(QWidget* parent = nullptr);

    void setExperiment(const Experiment& experiment);
    Experiment experiment() const;  // throws InputError
    QString experimentName() const;

Q_SIGNALS:
    void nameChanged(const QString& name);
    void changed();
    void invalidValue(const QString& message);
    // The field named by the last invalidValue() is valid again (its message is stale now).
    void valueAccepted();
    void message(const QString& text);  // e.g. the network adapted to the data set

private Q_SLOTS:
    bool checkNetwork();
    void dataChosen();

private:
    // Which field the last invalidValue() was about, so that its becoming valid can say so.
    enum class ErrorSource { None, Network, Data, Runs };
    void reportInvalid(ErrorSource source, const QString& message);
    void accepted(ErrorSource source);

    // What the chosen data set asks of the experiment (read from its training split).
    struct DataTraits {
        QString spec;
        bool classification = false;
        long trainSize = 0;
        int inputs = 0;
    };
    // The fields' values the data set would rather have (only those that differ).
    struct Suggestion {
        std::optional<LossKind> loss;
        std::optional<int> batch;
        std::optional<std::string> network;
        QStringList shown;  // "cross-entropy", "batch 64", "784-128-10"
        QStringList why;
    };
    Suggestion suggestion() const;
    void updateDataHint();
    void applyDataHint();
    void adaptNetwork(const QString& spec, const DataSplit& split);

    QComboBox* presets_;
    QLineEdit* name_;
    QLineEdit* network_;
    QComboBox* activation_;
    QComboBox* loss_;
    QComboBox* data_;
    SeedSpinBox* seed_;
    QSpinBox* batch_;
    QSpinBox* length_;
    QComboBox* lengthUnit_;
    QSpinBox* evalEvery_;
    RunListEditor* runs_;
    QWidget* hintRow_;
    QLabel* dataHint_;
    QToolButton* applyHint_;
    std::optional<DataTraits> shownTraits_;  // of the data set last chosen (none after setExperiment)
    bool settingExperiment_ = false;
    QString shownData_;            // the data set the network's sizes were last checked against
    std::string initWeightsFile_;  // kept from the loaded experiment (no editor)
    long diagnosticsEvery_ = 0;    // kept too: the instruments a preset asks for (the Diagnostics dock shows them)
    long curvatureEvery_ = 0;
    Holdout holdout_ = Holdout::None;
    ErrorSource errorShown_ =
        ErrorSource::None;  // kept too: a study trial's experiment evaluates on validation or test
};

}  // namespace ml
