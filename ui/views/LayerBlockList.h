#pragma once
// A recorded model's layers as blocks to pick from (experiment/RecordedLayers.h): shown above the
// network diagram when the layers form no chain of the app's networks (a subset of a model's
// layers, branches, modules between them). Each block names the layer, its kind and weight shape,
// and where it is known, the recorded layer whose output it reads; the picked one is drawn.
//   showLayers(m)      the blocks (hidden when m has none or is one network)
//   setCurrentLayer(l), currentLayer()   the picked block (-1: none)
//   layerName(l)       the module name of block l ("encoder.fc1")
//   signal layerPicked(l)  the user picked block l
#include "experiment/RecordedLayers.h"

#include <QListWidget>

namespace ml {

class LayerBlockList : public QListWidget {
    Q_OBJECT
public:
    explicit LayerBlockList(QWidget* parent = nullptr);

    void showLayers(const RecordedModel& model);
    void setCurrentLayer(int layer);
    int currentLayer() const { return currentRow(); }
    QString layerName(int layer) const;
    QSize sizeHint() const override;

Q_SIGNALS:
    void layerPicked(int layer);
};

}  // namespace ml
