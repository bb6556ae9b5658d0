#pragma once
// The neuron inspector's "Kernels" tab: for one output channel of a conv layer, its kernels as
// small images — one k×k image per input channel side by side (views/KernelGrid.h), one row per
// quantity (weight, gradient, momentum, its neuron mean, its deviation), one column per panel of
// the RunSelection (runs side by side, or A − B) at the selection's step. Each quantity row has
// its own colour scale (labelled with the quantity), shared by every panel so runs compare at a
// glance. Readable at any size, as NeuronImagePlot: no image's axis rect lower than
// kMinKernelImageHeight nor its kernel pixels smaller than kMinKernelPixel (the plot's minimum
// size grows with the columns; put it in a scroll area), thinned ticks, shortened captions.
//
// Public API
//   quantities()               the rows, in order
//   setChannel(layer, channel) the title
//   showColumns(kernel, inputs, columns)  one column per Column (caption, per quantity the
//                              channel's row of the matrix [1 x (inputs*k*k + 1)]; empty = not kept)
//   clearImages(), columnCount(), map(row, column), scale(row)
#include "model/Quantity.h"

#include <QStringList>

#include <qcustomplot.h>

#include <vector>

namespace ml {

inline constexpr int kMinKernelImageHeight = 40;  // px, an image's axis rect
inline constexpr int kMinKernelPixel = 5;         // px, a kernel weight's side at the minimum width

class KernelImagePlot : public QCustomPlot {
    Q_OBJECT
public:
    struct Column {
        QString caption;
        std::vector<Matrix> rows;  // one per quantities() entry
    };
    explicit KernelImagePlot(QWidget* parent = nullptr);

    static const std::vector<Quantity>& quantities();
    void setChannel(int layer, int channel);
    void showColumns(int kernel, int inputs, const std::vector<Column>& columns);
    void clearImages();
    int columnCount() const { return columns_; }
    QCPColorMap* map(int row, int column) const { return maps_[static_cast<std::size_t>(column * rowCount() + row)]; }
    QCPColorScale* scale(int row) const { return scales_[static_cast<std::size_t>(row)]; }

protected:
    // Not taken (QCustomPlot takes every wheel event): the wheel scrolls the rows.
    void wheelEvent(QWheelEvent* event) override { event->ignore(); }

private:
    static int rowCount() { return static_cast<int>(quantities().size()); }
    void rebuild(int columns);
    void arrangeImages();
    void updateMinimumSize();

    QCPTextElement* title_ = nullptr;
    QString titleText_;
    int columns_ = 0;
    std::vector<QCPColorMap*> maps_;  // column-major: column * rows + row
    std::vector<QCPColorScale*> scales_;
    std::vector<QStringList> captions_;  // per map, longest first (fittedCaption)
    int kernel_ = 0;
    int inputs_ = 0;
};

}  // namespace ml
