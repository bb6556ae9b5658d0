#pragma once
// A QCustomPlot graph's points in one block of memory for the graph's whole life: reserved at the
// cap of the history the graph mirrors and written once (so it is resident from the start), then
// never reallocated while the graph holds at most that many points; clear() keeps the block.
// Why: QCPDataContainer grows its QVector by reallocation (copy, old block back to the allocator),
// and add(QVector) on an empty container adopts the argument's block, so the convergence plot,
// cleared and refilled after each decimation of a track, regrew its points from a fresh block
// every time and the live heap crept up as the tracks filled (heaptrack of momentum-lab-gui-bench).
// Points must be added one at a time (add(const QCPGraphData&) appends into the block).
#include <qcustomplot.h>

namespace ml {

class ReservedGraphData : public QCPGraphDataContainer {
public:
    explicit ReservedGraphData(int capacity) {
        mData.resize(capacity);  // writes the block: its pages are resident now, not as it fills
        mData.resize(0);         // QList keeps its capacity when shrinking
    }
    qsizetype capacity() const { return mData.capacity(); }
};

}  // namespace ml
