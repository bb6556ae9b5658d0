#pragma once
// The one look of a refused value in the experiment forms: the field turns red and its tooltip
// says why. A field that keeps the bad value stays marked until it is valid (markInvalid /
// clearInvalidMark); a field that reverts to its last valid value only flashes (flashInvalid),
// since what it then shows is valid.
class QString;
class QWidget;

namespace ml {

void markInvalid(QWidget* field, const QString& reason);
void clearInvalidMark(QWidget* field);
bool isMarkedInvalid(const QWidget* field);
inline constexpr int kInvalidFlashMs = 1500;
void flashInvalid(QWidget* field, const QString& reason);

}  // namespace ml
