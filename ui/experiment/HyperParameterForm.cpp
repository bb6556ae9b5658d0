#include "experiment/HyperParameterForm.h"

#include "experiment/FieldMark.h"
#include "InputError.h"
#include "optim/OptimizerCatalog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>

#include <QToolButton>

#include <algorithm>
#include <array>
#include <limits>

namespace ml {

namespace {

bool foldedByDefault(const std::string& key) {
    static const std::array<std::string, 6> folded{
        "momentum-mean", "momentum-mean-blend",    "momentum-mean-stat", "second-moment-mean",
        "bias",          "gradient-centralization"};
    return std::find(folded.begin(), folded.end(), key) != folded.end();
}

}  // namespace

HyperParameterForm::HyperParameterForm(const std::string& optimizer, const HyperParameters& values, QWidget* parent)
    : QWidget(parent), optimizer_(optimizer), accepted_(values), layout_(new QFormLayout(this)) {
    QFormLayout* layout = layout_;
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    const HyperParameters& defaults = optimizerInfo(optimizer).defaults;
    bool unfold = false;  // a folded setting that differs from its default is shown
    for (const bool folded : {false, true}) {
        for (const std::string& key : optimizerInfo(optimizer).parameters) {
            const ParameterField* field = findParameterField(key);
            if (!field || foldedByDefault(key) != folded) continue;
            if (folded && !more_) {
                more_ = new QToolButton(this);
                more_->setObjectName("moreSettings");
                more_->setCheckable(true);
                more_->setAutoRaise(true);
                more_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
                more_->setToolTip(tr("The moment-sharing scopes, bias mode and gradient centralization"));
                layout->addRow(more_);
                connect(more_, &QToolButton::toggled, this, &HyperParameterForm::setExpanded);
            }
            Row row{field, createEditor(*field)};
            row.folded = folded;
            const QString tip = QString::fromStdString(field->help + " (" + field->rangeText() + ")");
            row.editor->setToolTip(tip);
            row.editor->setObjectName(QString::fromStdString(key));
            rows_.push_back(row);
            showValue(row);
            layout->addRow(QString::fromStdString(key) + ":", row.editor);
            unfold = unfold || (folded && field->get(values) != field->get(defaults));
        }
    }
    setExpanded(unfold);
}

void HyperParameterForm::setExpanded(bool expanded) {
    if (!more_) return;
    {
        const QSignalBlocker blocker(more_);
        more_->setChecked(expanded);
    }
    const auto folded = std::count_if(rows_.begin(), rows_.end(), [](const Row& row) { return row.folded; });
    more_->setArrowType(expanded ? Qt::DownArrow : Qt::RightArrow);
    more_->setText(tr("More settings (%1)").arg(folded));
    for (const Row& row : rows_) showRow(row);
}

bool HyperParameterForm::isExpanded() const { return !more_ || more_->isChecked(); }

void HyperParameterForm::showRow(const Row& row) {
    const bool shown = !row.folded || isExpanded();
    layout_->setRowVisible(row.editor, shown);
    if (row.note) layout_->setRowVisible(row.note, shown && !row.note->text().isEmpty());
}

QWidget* HyperParameterForm::createEditor(const ParameterField& field) {
    switch (field.kind) {
    case ParameterField::Kind::Flag: {
        auto* box = new QCheckBox(this);
        connect(box, &QCheckBox::toggled, this, [this, &field] {
            for (const Row& row : rows_)
                if (row.field == &field) checkRow(row);
        });
        return box;
    }
    case ParameterField::Kind::Choice: {
        auto* combo = new QComboBox(this);
        for (const std::string& choice : field.choices) combo->addItem(QString::fromStdString(choice));
        connect(combo, &QComboBox::currentIndexChanged, this, [this, &field] {
            for (const Row& row : rows_)
                if (row.field == &field) checkRow(row);
        });
        return combo;
    }
    case ParameterField::Kind::Real: break;
    }
    auto* edit = new QLineEdit(this);
    auto* validator = new QDoubleValidator(edit);
    validator->setNotation(QDoubleValidator::ScientificNotation);
    validator->setLocale(QLocale::c());  // "0.01", whatever the user's locale
    edit->setValidator(validator);
    connect(edit, &QLineEdit::editingFinished, this, [this, &field] {
        for (const Row& row : rows_)
            if (row.field == &field) checkRow(row);
    });
    return edit;
}

void HyperParameterForm::showValue(const Row& row) {
    const QString text = QString::fromStdString(row.field->get(accepted_));
    if (auto* box = qobject_cast<QCheckBox*>(row.editor)) {
        const QSignalBlocker blocker(box);
        box->setChecked(row.field->getReal(accepted_) != 0.0);
    } else if (auto* combo = qobject_cast<QComboBox*>(row.editor)) {
        const QSignalBlocker blocker(combo);
        combo->setCurrentText(text);
    } else if (auto* edit = qobject_cast<QLineEdit*>(row.editor)) {
        edit->setText(text);
    }
}

void HyperParameterForm::applyRow(const Row& row, HyperParameters& hp, const std::string& context) const {
    const std::string where = context.empty() ? row.field->key : context + " " + row.field->key;
    if (auto* box = qobject_cast<QCheckBox*>(row.editor))
        row.field->set(hp, box->isChecked() ? "true" : "false", where);
    else if (auto* combo = qobject_cast<QComboBox*>(row.editor))
        row.field->set(hp, combo->currentText().toStdString(), where);
    else if (auto* edit = qobject_cast<QLineEdit*>(row.editor)) {
        const std::string text = edit->text().trimmed().toStdString();
        if (text.empty()) throw InputError(where + ": enter a value (" + row.field->rangeText() + ")");
        row.field->set(hp, text, where);
    }
}

void HyperParameterForm::checkRow(const Row& row) {
    HyperParameters candidate = accepted_;
    try {
        applyRow(row, candidate, "");
        accepted_ = candidate;
        clearInvalidMark(row.editor);
        Q_EMIT edited();
    } catch (const InputError& error) {
        showValue(row);  // back to the last valid value, so the mark only flashes
        flashInvalid(row.editor, QString::fromStdString(error.what()));
        Q_EMIT invalidValue(QString::fromStdString(error.what()));
    }
}

HyperParameters HyperParameterForm::values(const std::string& context) const {
    HyperParameters hp = accepted_;
    for (const Row& row : rows_) applyRow(row, hp, context);
    validateHyperParameters(optimizer_, hp, context);
    return hp;
}

QWidget* HyperParameterForm::editor(const std::string& key) const {
    for (const Row& row : rows_)
        if (row.field->key == key) return row.editor;
    return nullptr;
}

void HyperParameterForm::setNote(const std::string& key, const QString& text) {
    for (Row& row : rows_) {
        if (row.field->key != key) continue;
        if (!row.note) {
            if (text.isEmpty()) return;
            row.note = new QLabel(this);
            row.note->setObjectName(QString::fromStdString(key + "-note"));
            row.note->setWordWrap(true);
            row.note->setStyleSheet(QStringLiteral("color: #a04000;"));  // the diagram's note colour
            int index = 0;
            QFormLayout::ItemRole role;
            layout_->getWidgetPosition(row.editor, &index, &role);
            layout_->insertRow(index + 1, row.note);  // right under its field, over the form's whole width
        }
        row.note->setText(text);
        row.note->setToolTip(text);
        if (row.folded && !text.isEmpty()) setExpanded(true);  // a warning is never folded away
        showRow(row);
        return;
    }
}

QString HyperParameterForm::note(const std::string& key) const {
    for (const Row& row : rows_)
        if (row.field->key == key && row.note && row.note->isVisibleTo(this)) return row.note->text();
    return {};
}

}  // namespace ml
