#pragma once
// The experiment editor (a dock): preset chooser, network, activation, loss, data set, seed,
// batch size, length (steps or epochs), evaluation interval, and the optimizer runs.
// experiment() builds the Experiment value and validates it (throws InputError naming the field
// as the form labels it). A bad network or data set is marked in its field when it is left;
// choosing another data set sets the network's input and output sizes to the data's.
#include "train/Experiment.h"

#include <QWidget>

class QComboBox;
class QLineEdit;
class QSpinBox;

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
    bool settingExperiment_ = false;
    QString shownData_;  // the data set the network's sizes were last checked against
    std::string initWeightsFile_;  // kept from the loaded experiment (no editor)
    long diagnosticsEvery_ = 0;  // kept too: the instruments a preset asks for (the Diagnostics dock shows them)
    long curvatureEvery_ = 0;
    Holdout holdout_ = Holdout::None;
    ErrorSource errorShown_ = ErrorSource::None;  // kept too: a study trial's experiment evaluates on validation or test
};

}  // namespace ml
