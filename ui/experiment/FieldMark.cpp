#include "experiment/FieldMark.h"

#include <QTimer>
#include <QVariant>
#include <QWidget>

namespace ml {

namespace {
constexpr const char* kPlainToolTip = "plainToolTip";  // the field's own tooltip, while marked
}

void markInvalid(QWidget* field, const QString& reason) {
    if (!isMarkedInvalid(field)) field->setProperty(kPlainToolTip, field->toolTip());
    field->setStyleSheet(QStringLiteral("background: #ffd6d6;"));
    const QString plain = field->property(kPlainToolTip).toString();
    field->setToolTip(plain.isEmpty() ? reason : reason + QLatin1Char('\n') + plain);
}

void clearInvalidMark(QWidget* field) {
    if (!isMarkedInvalid(field)) return;
    field->setStyleSheet(QString());
    field->setToolTip(field->property(kPlainToolTip).toString());
    field->setProperty(kPlainToolTip, QVariant());
}

bool isMarkedInvalid(const QWidget* field) { return field->property(kPlainToolTip).isValid(); }

void flashInvalid(QWidget* field, const QString& reason) {
    markInvalid(field, reason);
    QTimer::singleShot(kInvalidFlashMs, field, [field] { clearInvalidMark(field); });
}

}  // namespace ml
