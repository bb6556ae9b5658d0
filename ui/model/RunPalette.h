#pragma once
// The colour of run i, the same in every plot, legend and table: a qualitative palette (Tableau
// 10 order) whose colours stay distinct on white and for the common colour-vision deficiencies
// as far as ten colours allow.
#include <QColor>

namespace ml {

QColor runColor(int run);

}  // namespace ml
