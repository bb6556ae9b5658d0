#include "experiment/RunListEditor.h"

#include "experiment/HyperParameterForm.h"
#include "experiment/WheelGuard.h"
#include "InputError.h"
#include "model/RunPalette.h"
#include "optim/GroupSizes.h"
#include "optim/Optimizer.h"
#include "optim/OptimizerCatalog.h"
#include "views/SharingGroups.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPixmap>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

namespace ml {

namespace {

QIcon swatch(int run) {
    QPixmap pixmap(12, 12);
    pixmap.fill(runColor(run));
    return QIcon(pixmap);
}

QToolButton* button(const QString& text, const QString& tip, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    return b;
}

}  // namespace

RunListEditor::RunListEditor(QWidget* parent)
    : QWidget(parent), list_(new QListWidget(this)), label_(new QLineEdit(this)), optimizer_(new QComboBox(this)),
      summary_(new QLabel(this)), formHolder_(new QVBoxLayout) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(list_);  // as high as its runs (fitListHeight)

    auto* buttons = new QHBoxLayout;
    QToolButton* add = button(tr("Add"), tr("Add a run (momentum, default hyper-parameters)"), this);
    QToolButton* duplicate = button(tr("Duplicate"), tr("Copy the selected run"), this);
    QToolButton* remove = button(tr("Remove"), tr("Remove the selected run"), this);
    connect(add, &QToolButton::clicked, this, &RunListEditor::addRun);
    connect(duplicate, &QToolButton::clicked, this, &RunListEditor::duplicateRun);
    connect(remove, &QToolButton::clicked, this, &RunListEditor::removeRun);
    buttons->addWidget(add);
    buttons->addWidget(duplicate);
    buttons->addWidget(remove);
    buttons->addStretch(1);
    layout->addLayout(buttons);

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    for (const std::string& name : optimizerNames()) optimizer_->addItem(QString::fromStdString(name));
    // The combo may be narrower than its longest name: the dock leaves the plot and summary their width.
    optimizer_->setMinimumWidth(optimizer_->fontMetrics().horizontalAdvance(QStringLiteral("momentum")) + 32);
    optimizer_->setObjectName("optimizer");
    label_->setObjectName("runLabel");
    label_->setToolTip(tr("Unique name of the run (legend, table, output folder)"));
    form->addRow(tr("Label:"), label_);
    form->addRow(tr("Optimizer:"), optimizer_);
    layout->addLayout(form);
    summary_->setWordWrap(true);
    summary_->setStyleSheet("color: #555;");
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(summary_);
    layout->addLayout(formHolder_);

    connect(list_, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row == current_ || row < 0) return;
        storeCurrent();
        showRun(row);
    });
    connect(label_, &QLineEdit::editingFinished, this, [this] {
        if (current_ < 0) return;
        const std::string text = label_->text().trimmed().toStdString();
        if (text.empty() || text == runs_[static_cast<std::size_t>(current_)].label) {
            label_->setText(QString::fromStdString(runs_[static_cast<std::size_t>(current_)].label));
            return;
        }
        runs_[static_cast<std::size_t>(current_)].label = uniqueLabel(text, current_);
        label_->setText(QString::fromStdString(runs_[static_cast<std::size_t>(current_)].label));
        refreshList();
        Q_EMIT changed();
    });
    connect(optimizer_, &QComboBox::currentTextChanged, this, &RunListEditor::changeOptimizer);
}

void RunListEditor::setRuns(const std::vector<RunSpec>& runs) {
    runs_ = runs;
    current_ = -1;
    refreshList();
    showRun(runs_.empty() ? -1 : 0);
    Q_EMIT changed();
}

std::vector<RunSpec> RunListEditor::runs() const {
    std::vector<RunSpec> runs = runs_;
    if (form_ && current_ >= 0) {
        RunSpec& run = runs[static_cast<std::size_t>(current_)];
        run.hp = form_->values("run '" + run.label + "'");
    }
    return runs;
}

void RunListEditor::storeCurrent() {
    if (!form_ || current_ < 0 || current_ >= static_cast<int>(runs_.size())) return;
    RunSpec& run = runs_[static_cast<std::size_t>(current_)];
    try {
        run.hp = form_->values("run '" + run.label + "'");
    } catch (const InputError& error) {
        Q_EMIT invalidValue(QString::fromStdString(error.what()));
    }
}

void RunListEditor::showRun(int run) {
    current_ = run;
    delete form_;
    form_ = nullptr;
    const bool valid = run >= 0 && run < static_cast<int>(runs_.size());
    label_->setEnabled(valid);
    optimizer_->setEnabled(valid);
    if (!valid) {
        label_->clear();
        summary_->clear();
        return;
    }
    const RunSpec& spec = runs_[static_cast<std::size_t>(run)];
    label_->setText(QString::fromStdString(spec.label));
    {
        const QSignalBlocker blocker(optimizer_);
        optimizer_->setCurrentText(QString::fromStdString(spec.optimizer));
    }
    const OptimizerInfo& info = optimizerInfo(spec.optimizer);
    // The formula on screen, its description (one hover away) on the label and the combo.
    summary_->setText(QString::fromStdString(info.formula));
    summary_->setToolTip(QString::fromStdString(info.summary));
    optimizer_->setToolTip(QString::fromStdString(info.summary));
    form_ = new HyperParameterForm(spec.optimizer, spec.hp, this);
    connect(form_, &HyperParameterForm::edited, this, [this] {
        storeCurrent();
        updateScopeNotes();
        Q_EMIT changed();
    });
    connect(form_, &HyperParameterForm::invalidValue, this, &RunListEditor::invalidValue);
    formHolder_->addWidget(form_);
    WheelGuard::protect(form_);  // the form is rebuilt per run
    updateScopeNotes();
    if (list_->currentRow() != run) {
        const QSignalBlocker blocker(list_);
        list_->setCurrentRow(run);
    }
}

void RunListEditor::setNetworkSizes(const std::vector<int>& sizes) {
    if (sizes == networkSizes_) return;
    networkSizes_ = sizes;
    updateScopeNotes();
}

// A scope that shares nothing on this network (fan-in where each neuron has one weight and the
// bias is on its own) is allowed, but the form says so under the field that chose it: the scope's
// own field, or "bias" for a rule whose scope is fixed (neuron-mean: fan-in; adam-mini: v per
// neuron). The scopes are read from the optimizer itself, so fixed ones count too.
void RunListEditor::updateScopeNotes() {
    if (!form_ || current_ < 0) return;
    const RunSpec& run = runs_[static_cast<std::size_t>(current_)];
    std::unique_ptr<Optimizer> optimizer;
    try {
        optimizer = createOptimizer(run.optimizer, run.hp);
    } catch (const InputError&) {  // values the form refuses anyway
    }
    std::map<std::string, QStringList> notes{{"momentum-mean", {}}, {"second-moment-mean", {}}, {"bias", {}}};
    auto add = [&](const std::string& field, const std::string& scope, const std::string& fixedWording,
                   const std::vector<LayerGroups>& groups, BiasMode bias) {
        const bool ownField = form_->editor(field) != nullptr;
        const std::string subject = ownField ? field + " " + scope : run.optimizer + "'s " + scope + " " + fixedWording;
        const QString note = noEffectNote(QString::fromStdString(subject), groups, bias);
        if (!note.isEmpty()) notes[ownField ? field : "bias"] << note;
    };
    if (optimizer && !networkSizes_.empty()) {
        const MomentumAggregation& first = optimizer->aggregation();
        if (first.scope() != MeanScope::None && first.blend() > 0.0f)
            add("momentum-mean", scopeName(first.scope()), "mean",
                networkGroups(networkSizes_, first.scope(), first.bias()), first.bias());
        const SecondMomentSharing& second = optimizer->secondMomentSharing();
        if (second.scope() != SecondMomentScope::None)
            add("second-moment-mean", scopeName(second.scope()), "second moment",
                networkGroups(networkSizes_, second.scope(), second.bias()), second.bias());
    }
    for (const auto& [field, texts] : notes) form_->setNote(field, texts.join(QLatin1Char('\n')));
}

void RunListEditor::changeOptimizer(const QString& name) {
    if (current_ < 0) return;
    RunSpec& run = runs_[static_cast<std::size_t>(current_)];
    const std::string optimizer = name.toStdString();
    if (optimizer == run.optimizer) return;
    // A label that only named the old optimizer follows the new one.
    const bool autoLabel = run.label.rfind(run.optimizer, 0) == 0;
    const double lr = run.hp.lr;
    run.optimizer = optimizer;
    run.hp = optimizerInfo(optimizer).defaults;
    run.hp.lr = lr;  // the learning rate is usually what the user set on purpose
    if (autoLabel) {
        run.label = uniqueLabel(optimizer, current_);
    }
    refreshList();
    showRun(current_);
    Q_EMIT changed();
}

void RunListEditor::addRun() {
    storeCurrent();
    const std::string name = "momentum";
    runs_.push_back({uniqueLabel(name), name, optimizerInfo(name).defaults});
    refreshList();
    showRun(static_cast<int>(runs_.size()) - 1);
    Q_EMIT changed();
}

void RunListEditor::duplicateRun() {
    if (current_ < 0) return;
    storeCurrent();
    RunSpec copy = runs_[static_cast<std::size_t>(current_)];
    copy.label = uniqueLabel(copy.label);
    runs_.insert(runs_.begin() + current_ + 1, copy);
    refreshList();
    showRun(current_ + 1);
    Q_EMIT changed();
}

void RunListEditor::removeRun() {
    if (current_ < 0) return;
    runs_.erase(runs_.begin() + current_);
    const int next = std::min(current_, static_cast<int>(runs_.size()) - 1);
    current_ = -1;
    refreshList();
    showRun(next);
    Q_EMIT changed();
}

void RunListEditor::refreshList() {
    const QSignalBlocker blocker(list_);
    list_->clear();
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        const RunSpec& run = runs_[i];
        QString text = QString::fromStdString(run.label);
        if (run.label != run.optimizer) text += QString::fromStdString("  (" + run.optimizer + ")");
        list_->addItem(new QListWidgetItem(swatch(static_cast<int>(i)), text));
    }
    if (current_ >= 0) list_->setCurrentRow(current_);
    fitListHeight();
}

// The list is as high as its runs, from two to five rows (more scroll inside it): two runs do not
// take the room of five, which the run's form below needs on a 1366 x 768 screen.
void RunListEditor::fitListHeight() {
    constexpr int kFewestRows = 2;
    constexpr int kMostRows = 5;
    const int rows = std::clamp(list_->count(), kFewestRows, kMostRows);
    const int rowHeight = list_->count() > 0 ? list_->sizeHintForRow(0) : list_->fontMetrics().height() + 4;
    list_->setFixedHeight(rows * rowHeight + 2 * list_->frameWidth());
}

std::string RunListEditor::uniqueLabel(const std::string& wanted, int ignoredRun) const {
    std::set<std::string> taken;
    for (std::size_t i = 0; i < runs_.size(); ++i)
        if (static_cast<int>(i) != ignoredRun) taken.insert(runs_[i].label);
    if (!taken.count(wanted)) return wanted;
    for (int n = 2;; ++n) {
        const std::string candidate = wanted + "-" + std::to_string(n);
        if (!taken.count(candidate)) return candidate;
    }
}

}  // namespace ml
