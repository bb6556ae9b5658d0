#include "experiment/ForkDialog.h"

#include "experiment/RunListEditor.h"
#include "optim/OptimizerCatalog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

namespace ml {

std::vector<RunSpec> ForkDialog::defaultBranches(const RunSpec& source) {
    RunSpec own = source;
    own.label = source.optimizer;
    RunSpec other;
    other.optimizer = source.optimizer == "neuron-mean" ? "momentum" : "neuron-mean";
    other.label = other.optimizer;
    other.hp = optimizerInfo(other.optimizer).defaults;
    other.hp.lr = source.hp.lr;
    return {own, other};
}

ForkDialog::ForkDialog(const RunSpec& source, long step, long totalSteps, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Fork %1 at step %2").arg(QString::fromStdString(source.label)).arg(step));
    auto* intro = new QLabel(tr("Each branch continues the run's full state at step %1 (weights, step, data order) in "
                                "lockstep; a branch with the run's own optimizer also takes over its optimizer state, "
                                "the others start theirs fresh. Runs are labelled %2@%1\u2192branch.")
                                 .arg(step)
                                 .arg(QString::fromStdString(source.label)),
                             this);
    intro->setWordWrap(true);
    editor_ = new RunListEditor(this);
    editor_->setRuns(defaultBranches(source));
    until_ = new QSpinBox(this);
    until_->setRange(static_cast<int>(std::min<long>(step + 1, std::numeric_limits<int>::max())),
                     std::numeric_limits<int>::max());
    until_->setValue(
        static_cast<int>(std::min<long>(totalSteps > step ? totalSteps : 2 * step, std::numeric_limits<int>::max())));
    auto* form = new QFormLayout;
    form->addRow(tr("Train until step"), until_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Fork"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(editor_, 1);
    layout->addLayout(form);
    layout->addWidget(buttons);
}

std::vector<RunSpec> ForkDialog::branches() const { return editor_->runs(); }

long ForkDialog::untilStep() const { return until_->value(); }

}  // namespace ml
