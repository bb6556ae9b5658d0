#pragma once
// The neuron inspector's "As image" tab: for image data (setImageShape), a first-layer neuron's
// incoming weights and momentum as two images of height x width pixels, each on its own diverging
// colour scale, with square pixels whatever the widget's shape.
//
// Public API
//   setImageShape(shape), imageShape()   invalid shape: nothing applies
//   applies(s, layer)        the shape is valid, layer is 0 and s's inputs are height*width
//   setNeuron(layer, neuron) the title
//   showImages(s, neuron)    draws the neuron's row of s (call only when applies)
//   clearImages()
#include "data/Dataset.h"
#include "train/Snapshot.h"

#include <qcustomplot.h>

namespace ml {

class NeuronImagePlot : public QCustomPlot {
    Q_OBJECT
public:
    explicit NeuronImagePlot(QWidget* parent = nullptr);

    void setImageShape(ImageShape shape) { shape_ = shape; }
    ImageShape imageShape() const { return shape_; }
    bool applies(const Snapshot& snapshot, int layer) const;
    void setNeuron(int layer, int neuron);
    void showImages(const Snapshot& snapshot, int neuron);
    void clearImages();

private:
    struct Image {
        QCPAxisRect* rect = nullptr;
        QCPColorMap* map = nullptr;
        QCPColorScale* scale = nullptr;
    };
    void keepPixelsSquare();

    QCPTextElement* title_ = nullptr;
    Image weights_, momentum_;
    ImageShape shape_;
};

}  // namespace ml
