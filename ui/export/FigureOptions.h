#pragma once
// The size, resolution and title of an exported figure (what the figure-size dialog asks for and
// the app remembers). A plain value, so settings need not know how figures are drawn.
//   width x height  the layout size in logical pixels (what the plot is laid out for)
//   dpi             PNG: pixels = size * dpi / 96 and the resolution stored in the file;
//                   PDF/SVG: vector output of width x height at 96 dpi (1 px = 0.75 pt)
// The default is report-sized: 16 cm x 9 cm (605 x 340 px at 96 per inch) at 300 dpi, so the
// app's 9 pt labels print at 9 pt (PNG 1890 x 1063 pixels).
#include <QString>

namespace ml {

struct FigureOptions {
    int width = 605;
    int height = 340;
    int dpi = 300;
    QString title;  // PDF/SVG metadata
};

}  // namespace ml
