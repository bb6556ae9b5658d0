#pragma once
// Asks for an export's size (width x height in px, cm or in) and DPI, and says what that makes:
// the PNG's pixels at that DPI, the printed size of PDF/SVG and the pgfplots size.
#include "export/FigureOptions.h"

#include <QDialog>

#include <optional>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace ml {

class FigureSizeDialog : public QDialog {
    Q_OBJECT
public:
    FigureSizeDialog(const FigureOptions& initial, QWidget* parent = nullptr);
    FigureOptions options() const;
    QString summary() const;  // the note under the fields ("PNG: 1890 × 1063 pixels; …")

    // nullopt when cancelled.
    static std::optional<FigureOptions> ask(QWidget* parent, const FigureOptions& initial);

private:
    LengthUnit unit() const;
    void showIn(LengthUnit unit);  // converts the shown width and height to `unit`
    int widthPixels() const;
    int heightPixels() const;
    void describe();

    FigureOptions initial_;
    LengthUnit shownUnit_;
    double widthPixels_;  // the size in layout pixels, exact whatever unit shows it
    double heightPixels_;
    QDoubleSpinBox* width_;
    QDoubleSpinBox* height_;
    QComboBox* unit_;
    QSpinBox* dpi_;
    QLabel* note_;
};

}  // namespace ml
