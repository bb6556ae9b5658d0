#pragma once
// The experiment editor (a dock): preset chooser, network, activation, loss, data set, seed,
// batch size, length (steps or epochs), evaluation interval, and the optimizer runs.
// experiment() builds the Experiment value and validates it (throws InputError naming the field).
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

private:
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
    std::string initWeightsFile_;  // kept from the loaded experiment (no editor)
};

}  // namespace ml
