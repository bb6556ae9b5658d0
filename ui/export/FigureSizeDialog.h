#pragma once
// Asks for an export's size (width x height in pixels) and DPI.
#include "export/FigureOptions.h"

#include <QDialog>

#include <optional>

class QSpinBox;

namespace ml {

class FigureSizeDialog : public QDialog {
    Q_OBJECT
public:
    FigureSizeDialog(const FigureOptions& initial, QWidget* parent = nullptr);
    FigureOptions options() const;

    // nullopt when cancelled.
    static std::optional<FigureOptions> ask(QWidget* parent, const FigureOptions& initial);

private:
    FigureOptions initial_;
    QSpinBox* width_;
    QSpinBox* height_;
    QSpinBox* dpi_;
};

}  // namespace ml
