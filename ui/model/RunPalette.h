#pragma once
// The colour of run i, the same in every plot, legend and table: a qualitative palette (Tableau
// 10 order) whose colours stay distinct on white and for the common colour-vision deficiencies
// as far as ten colours allow.
#include <QColor>
#include <QIcon>

#include <vector>

namespace ml {

QColor runColor(int run);

// How a run is drawn for its whole life: its colour slot (what runColor takes) and whether it is
// a kept comparison's run overlaid on the current one (then a lighter variant of its own colour,
// never another run's).
struct RunLook {
    int slot = 0;
    bool kept = false;
};
QColor runColor(RunLook look);
// The looks of runs 0..count-1 of a comparison of their own.
std::vector<RunLook> ownLooks(int count);

// A square of run i's colour for item views (larger than any decoration size: drawn scaled down).
// Keep and hand out the same QIcon: a table given the bare QColor paints a new pixmap every time,
// and Qt's icon engine caches each under a new key, so QPixmapCache filled towards its 10 MB
// limit while training repainted the summary (heaptrack of momentum-lab-gui-bench).
QIcon runSwatch(int run);

QIcon runSwatch(RunLook look);

}  // namespace ml
