#pragma once
// The optimizer runs of an experiment: a list (add, duplicate, remove; as high as its runs) and,
// for the selected run, its label, its optimizer, the optimizer's formula and a
// HyperParameterForm with only that optimizer's parameters.
// Given the network (setNetworkSizes), the form warns under momentum-mean and second-moment-mean
// when the chosen scope changes nothing for some layer (core's networkGroups()).
#include "experiment/Experiment.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QVBoxLayout;

namespace ml {

class HyperParameterForm;

class RunListEditor : public QWidget {
    Q_OBJECT
public:
    explicit RunListEditor(QWidget* parent = nullptr);

    void setRuns(const std::vector<RunSpec>& runs);
    // The runs with the form's current values; throws InputError naming the run and field.
    std::vector<RunSpec> runs() const;
    int currentRun() const { return current_; }
    HyperParameterForm* form() const { return form_; }
    // Layer sizes, inputs first; empty while the network field cannot be read (no warnings).
    void setNetworkSizes(const std::vector<int>& sizes);

public Q_SLOTS:
    void addRun();
    void duplicateRun();
    void removeRun();

Q_SIGNALS:
    void changed();
    void invalidValue(const QString& message);

private:
    void showRun(int run);
    void storeCurrent();  // valid form values -> runs_[current_]
    void changeOptimizer(const QString& name);
    void refreshList();
    void fitListHeight();
    void updateScopeNotes();
    // `wanted`, or `wanted-2`, `wanted-3`, ... so that no other run (ignoredRun excepted) has it.
    std::string uniqueLabel(const std::string& wanted, int ignoredRun = -1) const;

    std::vector<RunSpec> runs_;
    std::vector<int> networkSizes_;
    int current_ = -1;
    QListWidget* list_;
    QLineEdit* label_;
    QComboBox* optimizer_;
    QLabel* summary_;
    QVBoxLayout* formHolder_;
    HyperParameterForm* form_ = nullptr;
};

}  // namespace ml
