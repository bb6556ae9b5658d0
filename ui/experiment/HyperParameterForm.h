#pragma once
// The form of ONE optimizer's hyper-parameters: one row per key the optimizer reads (from
// OptimizerCatalog), its editor chosen by the ParameterField kind (Real: a line edit with a
// validator, Flag: a check box, Choice: a combo box), tooltips from the field's help and range.
// An invalid value is refused when the field is left (the last valid value comes back, the field
// flashes red and invalidValue() says why); values() parses everything again and throws
// InputError naming the field, so a value typed just before "Start" is checked too.
// setNote(key, text) shows a non-blocking warning under a field (empty text: none).
// The rarely changed settings (the moment-sharing scopes, blend, statistic, bias mode and gradient
// centralization) are folded under "More settings", so that a run's form fits beside the rest of
// the experiment on a 1366 x 768 screen; they unfold when one differs from its default, when a
// note is shown under one, or on a click (setExpanded, isExpanded).
#include "optim/HyperParameters.h"

#include <QWidget>

#include <string>
#include <vector>

class QFormLayout;
class QLabel;
class QLineEdit;
class QToolButton;

namespace ml {

struct ParameterField;

class HyperParameterForm : public QWidget {
    Q_OBJECT
public:
    HyperParameterForm(const std::string& optimizer, const HyperParameters& values, QWidget* parent = nullptr);

    const std::string& optimizer() const { return optimizer_; }
    // All fields parsed and range-checked; `context` prefixes error messages ("runs[0]").
    HyperParameters values(const std::string& context) const;
    QWidget* editor(const std::string& key) const;
    // A warning under the field `key` (nothing when the form has no such field); "" removes it.
    void setNote(const std::string& key, const QString& text);
    QString note(const std::string& key) const;
    void setExpanded(bool expanded);
    bool isExpanded() const;

Q_SIGNALS:
    void edited();
    void invalidValue(const QString& message);

private:
    struct Row {
        const ParameterField* field;
        QWidget* editor;
        QLabel* note = nullptr;  // created by the first setNote
        bool folded = false;     // under "More settings"
    };
    void showRow(const Row& row);
    QWidget* createEditor(const ParameterField& field);
    void applyRow(const Row& row, HyperParameters& hp, const std::string& context) const;
    void checkRow(const Row& row);
    void showValue(const Row& row);

    std::string optimizer_;
    HyperParameters accepted_;  // the last valid values
    std::vector<Row> rows_;
    QFormLayout* layout_;
    QToolButton* more_ = nullptr;  // folds the rarely changed rows; null when there are none
};

}  // namespace ml
