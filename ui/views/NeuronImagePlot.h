#pragma once
// The neuron inspector's "As image" tab: for image data (setImageShape), a first-layer neuron's
// incoming weights and momentum as images of height x width pixels, with square pixels whatever
// the widget's shape. One row per panel of the RunSelection (runs side by side, or A − B) under
// the column headings "weights" and "momentum"; the weights column shares one colour scale over
// every row, the momentum column another, so rows compare at a glance.
// Readable at any size: no image gets smaller than kMinImageWidth x kMinImageHeight (the plot's
// minimum size grows with the rows; put it in a scroll area), tick labels are thinned to the room
// the pixels give them, captions and colour-scale labels are shortened to their image's or bar's
// length.
//
// Public API
//   setImageShape(shape), imageShape()   invalid shape: nothing applies
//   applies(s, layer)        the shape is valid, layer is 0 and s's inputs are height*width
//   setNeuron(layer, neuron) the title
//   showRows(rows)           one row per Row (caption, the neuron's incoming weights and
//                            momentum as vectors of height*width values; empty = not kept)
//   showImages(s, neuron)    one row from a snapshot (call only when applies)
//   clearImages(), rowCount(), image(row, column) (column 0 weights, 1 momentum)
//
// Shared with KernelImagePlot:
//   readableTickStep(pixelsPerTick, labelPixels)  1, 2, 5, 10, 20, ...: the smallest step whose
//                            labels stay labelPixels apart
//   fittedCaption(candidates, font, width)  the first candidate that fits, else the last elided
//   fitColorScale(scale, label)  ticks for the bar's length, the label shortened to it
//   growToLayoutMinimum(plot)  raises the plot's minimum size to what its laid-out elements need
//                            (their margins are known only after a layout; queued)
#include "data/Dataset.h"
#include "train/Snapshot.h"

#include <qcustomplot.h>

#include <vector>

namespace ml {

inline constexpr int kMinImageHeight =
    84;  // px, an image's axis rect (3 px per pixel of 28 x 28): below it the view scrolls
inline constexpr int kMinImageWidth = 84;

int readableTickStep(double pixelsPerTick, int labelPixels);
QString fittedCaption(const QStringList& candidates, const QFont& font, int width);
void fitColorScale(QCPColorScale* scale, const QString& label);
void growToLayoutMinimum(QCustomPlot* plot);

class NeuronImagePlot : public QCustomPlot {
    Q_OBJECT
public:
    struct Row {
        QString caption;
        Vector weights;   // empty: not kept
        Vector momentum;  // empty: not kept
        QString missing;  // why a vector is empty (model/Quantity.h: missingQuantityReason)
    };
    explicit NeuronImagePlot(QWidget* parent = nullptr);

    void setImageShape(ImageShape shape) { shape_ = shape; }
    ImageShape imageShape() const { return shape_; }
    bool applies(const Snapshot& snapshot, int layer) const;
    void setNeuron(int layer, int neuron);
    void showRows(const std::vector<Row>& rows);
    void showImages(const Snapshot& snapshot, int neuron);
    void clearImages();
    int rowCount() const { return static_cast<int>(images_.size()); }
    QCPColorMap* image(int row, int column) const {
        return images_[static_cast<std::size_t>(row)][static_cast<std::size_t>(column)].map;
    }
    QCPColorScale* weightScale() const { return scales_[0]; }
    QCPColorScale* momentumScale() const { return scales_[1]; }

protected:
    // Not taken (QCustomPlot takes every wheel event): the wheel scrolls the rows.
    void wheelEvent(QWheelEvent* event) override { event->ignore(); }

private:
    struct Image {
        QCPAxisRect* rect = nullptr;
        QCPColorMap* map = nullptr;
        QStringList captions;  // longest first (fittedCaption)
    };
    void rebuild(int rows);
    void arrangeImages();
    void updateMinimumSize();

    QCPTextElement* title_ = nullptr;
    std::vector<std::array<Image, 2>> images_;  // per row: weights, momentum
    std::array<QCPColorScale*, 2> scales_{};
    ImageShape shape_;
    QString titleText_;
};

}  // namespace ml
