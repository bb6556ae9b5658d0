#pragma once
// The size, resolution and title of an exported figure (what the figure-size dialog asks for and
// the app remembers). A plain value, so settings need not know how figures are drawn.
//   width x height  the layout size in logical pixels (what the plot is laid out for)
//   dpi             PNG: pixels = size * dpi / 96 and the resolution stored in the file;
//                   PDF/SVG: vector output of width x height at 96 dpi (1 px = 0.75 pt)
#include <QString>

namespace ml {

struct FigureOptions {
    int width = 1200;
    int height = 800;
    int dpi = 96;
    QString title;  // PDF/SVG metadata
};

}  // namespace ml
