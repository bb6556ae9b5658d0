#include "export/FigureSizeDialog.h"

#include "export/PgfplotsFigure.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

namespace ml {

namespace {

QSpinBox* spin(int minimum, int maximum, int value, const QString& suffix, QWidget* parent) {
    auto* box = new QSpinBox(parent);
    box->setRange(minimum, maximum);
    box->setValue(value);
    box->setSuffix(suffix);
    return box;
}

}  // namespace

FigureSizeDialog::FigureSizeDialog(const FigureOptions& initial, QWidget* parent)
    : QDialog(parent), initial_(initial), width_(spin(16, 20000, initial.width, tr(" px"), this)),
      height_(spin(16, 20000, initial.height, tr(" px"), this)), dpi_(spin(24, 1200, initial.dpi, tr(" dpi"), this)) {
    setWindowTitle(tr("Figure size"));
    auto* form = new QFormLayout(this);
    form->addRow(tr("Width:"), width_);
    form->addRow(tr("Height:"), height_);
    form->addRow(tr("Resolution:"), dpi_);
    auto* note = new QLabel(this);
    note->setWordWrap(true);
    form->addRow(note);
    // pgfplots sizes are in millimetres: say what these pixels come to.
    const auto describe = [this, note] {
        note->setText(tr("PNG gets width × height × dpi/96 pixels; PDF and SVG are vector drawings of this size; "
                         "a pgfplots .tex is %1 × %2 mm.")
                          .arg(PgfplotsFigure::millimetres(width_->value()), 0, 'f', 1)
                          .arg(PgfplotsFigure::millimetres(height_->value()), 0, 'f', 1));
    };
    describe();
    connect(width_, &QSpinBox::valueChanged, this, describe);
    connect(height_, &QSpinBox::valueChanged, this, describe);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

FigureOptions FigureSizeDialog::options() const {
    FigureOptions options = initial_;
    options.width = width_->value();
    options.height = height_->value();
    options.dpi = dpi_->value();
    return options;
}

std::optional<FigureOptions> FigureSizeDialog::ask(QWidget* parent, const FigureOptions& initial) {
    FigureSizeDialog dialog(initial, parent);
    if (dialog.exec() != QDialog::Accepted) return std::nullopt;
    return dialog.options();
}

}  // namespace ml
