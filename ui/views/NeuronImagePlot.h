#pragma once
// The neuron inspector's "As image" tab: for image data (setImageShape), a first-layer neuron's
// incoming weights and momentum as images of height x width pixels, with square pixels whatever
// the widget's shape. One row per panel of the RunSelection (runs side by side, or A − B); the
// weights column shares one colour scale over every row, the momentum column another, so rows
// compare at a glance.
//
// Public API
//   setImageShape(shape), imageShape()   invalid shape: nothing applies
//   applies(s, layer)        the shape is valid, layer is 0 and s's inputs are height*width
//   setNeuron(layer, neuron) the title
//   showRows(rows)           one row per Row (caption, the neuron's incoming weights and
//                            momentum as vectors of height*width values; empty = not kept)
//   showImages(s, neuron)    one row from a snapshot (call only when applies)
//   clearImages(), rowCount()
#include "data/Dataset.h"
#include "train/Snapshot.h"

#include <qcustomplot.h>

#include <vector>

namespace ml {

class NeuronImagePlot : public QCustomPlot {
    Q_OBJECT
public:
    struct Row {
        QString caption;
        Vector weights;   // empty: not kept
        Vector momentum;  // empty: not kept
        QString missing;  // why a vector is empty (views/Quantity.h: missingQuantityReason)
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
    QCPColorScale* weightScale() const { return scales_[0]; }
    QCPColorScale* momentumScale() const { return scales_[1]; }

private:
    struct Image {
        QCPAxisRect* rect = nullptr;
        QCPColorMap* map = nullptr;
    };
    void rebuild(int rows);
    void keepPixelsSquare();

    QCPTextElement* title_ = nullptr;
    std::vector<std::array<Image, 2>> images_;  // per row: weights, momentum
    std::array<QCPColorScale*, 2> scales_{};
    ImageShape shape_;
    QString titleText_;
};

}  // namespace ml
