#pragma once
// The ONE writer of pgfplots/TikZ figures (tensorboard #32): NAME.tex, a LaTeX document that
// pdflatex compiles alone (cropped to the figure) and whose tikzpicture can be pasted into a paper,
// and NAME.csv beside it with every plotted point in named columns, which the .tex reads by
// name, so the numbers stay in one place.
// Callers describe axes and plots; this class owns the LaTeX (escaping, preamble, tables, legend,
// bands) and the CSV. Used by the study aggregation (core/study) and the app's plot export
// (ui/export/PgfplotsFigure, which reads a QCustomPlot into it).
#include <QByteArray>
#include <QString>

#include <map>
#include <utility>
#include <vector>

namespace ml {

struct PgfplotsFiles {
    QByteArray tex;
    QByteArray csv;
};

class PgfplotsDocument {
public:
    // `csvName`: the CSV file name as the .tex refers to it (beside the .tex).
    explicit PgfplotsDocument(QString csvName) : csvName_(std::move(csvName)) {}

    // A column-name stem unique in the table, from a series name ("Neuron mean" -> "neuron-mean";
    // "series3" when the name has no letters).
    QByteArray stem(const QString& name);
    // A column of the CSV; columns may differ in length (padded with nan, which pgfplots skips).
    void addColumn(const QByteArray& name, std::vector<double> values);

    // Axes follow one another in the tikzpicture; `options` without the brackets.
    void beginAxis(const QByteArray& options);
    // \addplot[style] reading columns x and y of the CSV; `tableOptions` adds to table[...] (", meta expr=...").
    void addPlot(const QByteArray& style, const QByteArray& xColumn, const QByteArray& yColumn,
                 const QByteArray& tableOptions = {});
    void addLegendEntry(const QString& text);
    // A band between two plots named with "name path=..." in their style.
    void addFillBetween(const QByteArray& style, const QByteArray& pathA, const QByteArray& pathB);
    // A text node at a pgfplots coordinate ("(axis cs:1,2)").
    void addNode(const QByteArray& style, const QByteArray& at, const QString& text);
    void endAxis();

    // The .tex (`title` in its first comment line, the size in millimetres) and the CSV.
    PgfplotsFiles render(const QString& title, double widthMm, double heightMm) const;
    // Writes TEX_PATH and the CSV beside it (named as given to the constructor), both atomically.
    // Throws FileError when a file cannot be written.
    void save(const QString& texPath, const QString& title, double widthMm, double heightMm) const;

    // Text for pdflatex: the reserved characters escaped, Greek and other symbols as LaTeX commands.
    static QByteArray latex(const QString& text);
    // A number as pgfplots reads it (nan, inf and -inf included).
    static QByteArray number(double value);
    // "160.1mm"
    static QByteArray millimetres(double mm);

private:
    QString csvName_;
    std::map<QByteArray, bool> usedStems_;
    std::vector<std::pair<QByteArray, std::vector<double>>> columns_;
    QByteArray body_;
};

}  // namespace ml
