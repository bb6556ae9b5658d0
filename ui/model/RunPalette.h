#pragma once
// The colour of run i, the same in every plot, legend and table: a qualitative palette (Tableau
// 10 order) whose colours stay distinct on white and for the common colour-vision deficiencies
// as far as ten colours allow.
#include <QColor>
#include <QIcon>

namespace ml {

QColor runColor(int run);
// A square of run i's colour for item views (larger than any decoration size: drawn scaled down).
// Keep and hand out the same QIcon: a table given the bare QColor paints a new pixmap every time,
// and Qt's icon engine caches each under a new key, so QPixmapCache filled towards its 10 MB
// limit while training repainted the summary (heaptrack of momentum-lab-gui-bench).
QIcon runSwatch(int run);

}  // namespace ml
