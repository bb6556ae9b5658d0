#pragma once
// The size, resolution and title of an exported figure (what the figure-size dialog asks for and
// the app remembers). A plain value, so settings need not know how figures are drawn.
//   width x height  the layout size in logical pixels (what the plot is laid out for), 96 per inch
//   dpi             PNG: pixels = size * dpi / 96 and the resolution stored in the file;
//                   PDF/SVG: vector output of width x height at 96 dpi (1 px = 0.75 pt)
//   unit            how the dialog shows and takes the size (px, cm or in); the size itself
//                   stays in layout pixels, so 12 cm at 300 dpi is a PNG of 12 / 2.54 * 300 pixels
// The default is report-sized: 16 cm x 9 cm (605 x 340 px at 96 per inch) at 300 dpi, so the
// app's 9 pt labels print at 9 pt (PNG 1890 x 1063 pixels).
#include <QString>

namespace ml {

enum class LengthUnit { Pixels, Centimetres, Inches };

inline constexpr double kLayoutPixelsPerInch = 96.0;

inline double pixelsPerUnit(LengthUnit unit) {
    switch (unit) {
    case LengthUnit::Pixels: return 1.0;
    case LengthUnit::Centimetres: return kLayoutPixelsPerInch / 2.54;
    case LengthUnit::Inches: return kLayoutPixelsPerInch;
    }
    return 1.0;
}

// A length in `unit` as layout pixels, and layout pixels in `unit`.
inline double layoutPixels(double length, LengthUnit unit) { return length * pixelsPerUnit(unit); }
inline double lengthIn(double pixels, LengthUnit unit) { return pixels / pixelsPerUnit(unit); }

// "px", "cm", "in": the unit as the dialog and the CLI (--width 12cm) write it.
inline QString unitSymbol(LengthUnit unit) {
    switch (unit) {
    case LengthUnit::Pixels: return QStringLiteral("px");
    case LengthUnit::Centimetres: return QStringLiteral("cm");
    case LengthUnit::Inches: return QStringLiteral("in");
    }
    return {};
}

struct FigureOptions {
    int width = 605;
    int height = 340;
    int dpi = 300;
    QString title;                              // PDF/SVG metadata
    LengthUnit unit = LengthUnit::Centimetres;  // the default size is stated in cm
};

}  // namespace ml
