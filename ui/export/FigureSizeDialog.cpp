#include "export/FigureSizeDialog.h"

#include "export/PgfplotsFigure.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>

#include <algorithm>
#include <cmath>

namespace ml {

namespace {

constexpr int kMinimumPixels = 16;
constexpr int kMaximumPixels = 20000;

int wholePixels(double pixels) {
    return std::clamp(static_cast<int>(std::lround(pixels)), kMinimumPixels, kMaximumPixels);
}

QDoubleSpinBox* lengthBox(const QString& name, QWidget* parent) {
    auto* box = new QDoubleSpinBox(parent);
    box->setObjectName(name);
    box->setAccelerated(true);
    return box;
}

}  // namespace

FigureSizeDialog::FigureSizeDialog(const FigureOptions& initial, QWidget* parent)
    : QDialog(parent), initial_(initial), shownUnit_(initial.unit), widthPixels_(initial.width),
      heightPixels_(initial.height), width_(lengthBox("width", this)), height_(lengthBox("height", this)),
      unit_(new QComboBox(this)), dpi_(new QSpinBox(this)), note_(new QLabel(this)) {
    setWindowTitle(tr("Figure size"));
    for (const LengthUnit unit : {LengthUnit::Pixels, LengthUnit::Centimetres, LengthUnit::Inches})
        unit_->addItem(unitSymbol(unit), static_cast<int>(unit));
    unit_->setObjectName("unit");
    unit_->setToolTip(tr("Pixels are layout pixels at 96 per inch; the resolution decides the PNG's pixels"));
    dpi_->setObjectName("dpi");
    dpi_->setRange(24, 1200);
    dpi_->setSuffix(tr(" dpi"));
    dpi_->setValue(initial.dpi);
    unit_->setCurrentIndex(unit_->findData(static_cast<int>(initial.unit)));
    showIn(initial.unit);

    auto* form = new QFormLayout(this);
    auto* units = new QHBoxLayout;
    units->addWidget(unit_);
    units->addStretch(1);
    form->addRow(tr("Width:"), width_);
    form->addRow(tr("Height:"), height_);
    form->addRow(tr("Units:"), units);
    form->addRow(tr("Resolution:"), dpi_);
    note_->setObjectName("summary");
    note_->setWordWrap(true);
    form->addRow(note_);
    describe();
    connect(unit_, &QComboBox::currentIndexChanged, this, [this] {
        showIn(unit());
        describe();
    });
    // An edit sets the size; a change of unit only shows the same size in other numbers.
    connect(width_, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        widthPixels_ = layoutPixels(value, shownUnit_);
        describe();
    });
    connect(height_, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        heightPixels_ = layoutPixels(value, shownUnit_);
        describe();
    });
    connect(dpi_, &QSpinBox::valueChanged, this, &FigureSizeDialog::describe);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

LengthUnit FigureSizeDialog::unit() const { return static_cast<LengthUnit>(unit_->currentData().toInt()); }

void FigureSizeDialog::showIn(LengthUnit unit) {
    shownUnit_ = unit;
    const int decimals = unit == LengthUnit::Pixels ? 0 : 2;
    const double step = unit == LengthUnit::Pixels ? 10.0 : unit == LengthUnit::Centimetres ? 0.5 : 0.25;
    for (auto [box, pixels] : {std::pair{width_, widthPixels_}, std::pair{height_, heightPixels_}}) {
        const QSignalBlocker quiet(box);
        box->setDecimals(decimals);
        box->setSingleStep(step);
        // The range first (in the new unit), so the converted value is not clamped to the old one.
        box->setRange(lengthIn(kMinimumPixels, unit), lengthIn(kMaximumPixels, unit));
        box->setSuffix(" " + unitSymbol(unit));
        box->setValue(lengthIn(pixels, unit));
    }
}

int FigureSizeDialog::widthPixels() const { return wholePixels(widthPixels_); }

int FigureSizeDialog::heightPixels() const { return wholePixels(heightPixels_); }

QString FigureSizeDialog::summary() const { return note_->text(); }

void FigureSizeDialog::describe() {
    const double scale = dpi_->value() / kLayoutPixelsPerInch;
    const int width = widthPixels(), height = heightPixels();
    note_->setText(tr("PNG: %1 × %2 pixels at %3 dpi. PDF and SVG: vector drawings of %4 × %5 cm. "
                      "pgfplots .tex: %6 × %7 mm.")
                       .arg(std::lround(width * scale))
                       .arg(std::lround(height * scale))
                       .arg(dpi_->value())
                       .arg(lengthIn(width, LengthUnit::Centimetres), 0, 'f', 1)
                       .arg(lengthIn(height, LengthUnit::Centimetres), 0, 'f', 1)
                       .arg(PgfplotsFigure::millimetres(width), 0, 'f', 1)
                       .arg(PgfplotsFigure::millimetres(height), 0, 'f', 1));
}

FigureOptions FigureSizeDialog::options() const {
    FigureOptions options = initial_;
    options.width = widthPixels();
    options.height = heightPixels();
    options.dpi = dpi_->value();
    options.unit = shownUnit_;
    return options;
}

std::optional<FigureOptions> FigureSizeDialog::ask(QWidget* parent, const FigureOptions& initial) {
    FigureSizeDialog dialog(initial, parent);
    if (dialog.exec() != QDialog::Accepted) return std::nullopt;
    return dialog.options();
}

}  // namespace ml
