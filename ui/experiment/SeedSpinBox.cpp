#include "experiment/SeedSpinBox.h"

#include <QLineEdit>

#include <limits>

namespace ml {

namespace {

constexpr std::uint64_t kMaxSeed = std::numeric_limits<std::uint64_t>::max();

}  // namespace

SeedSpinBox::SeedSpinBox(QWidget* parent) : QAbstractSpinBox(parent) {
    setAccelerated(true);
    lineEdit()->setText(QStringLiteral("0"));
    connect(lineEdit(), &QLineEdit::textEdited, this, [this](const QString& text) {
        bool ok = false;
        const std::uint64_t value = text.toULongLong(&ok);
        if (ok) value_ = value;
    });
}

void SeedSpinBox::setValue(std::uint64_t value) {
    value_ = value;
    lineEdit()->setText(QString::number(value));
}

QValidator::State SeedSpinBox::validate(QString& input, int&) const {
    if (input.isEmpty()) return QValidator::Intermediate;
    for (const QChar c : input)
        if (!c.isDigit()) return QValidator::Invalid;
    bool ok = false;
    input.toULongLong(&ok);  // false when above 2^64 - 1
    return ok ? QValidator::Acceptable : QValidator::Invalid;
}

void SeedSpinBox::fixup(QString& input) const { input = QString::number(value_); }

void SeedSpinBox::stepBy(int steps) {
    const std::uint64_t magnitude = static_cast<std::uint64_t>(steps < 0 ? -static_cast<long long>(steps) : steps);
    if (steps < 0) setValue(value_ < magnitude ? 0 : value_ - magnitude);
    else setValue(kMaxSeed - value_ < magnitude ? kMaxSeed : value_ + magnitude);
}

QAbstractSpinBox::StepEnabled SeedSpinBox::stepEnabled() const {
    StepEnabled enabled = StepNone;
    if (value_ > 0) enabled |= StepDownEnabled;
    if (value_ < kMaxSeed) enabled |= StepUpEnabled;
    return enabled;
}

}  // namespace ml
