#include "io/PgfplotsDocument.h"

#include "io/Files.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <cmath>

namespace ml {

QByteArray PgfplotsDocument::latex(const QString& text) {
    // pdflatex has no glyphs for these in text: the app's labels use them.
    static const std::map<QChar, QByteArray> symbols{
        {QChar(0x03C4), "$\\tau$"},    {QChar(0x03C1), "$\\rho$"},     {QChar(0x03BC), "$\\mu$"},
        {QChar(0x03B7), "$\\eta$"},    {QChar(0x03B1), "$\\alpha$"},   {QChar(0x03B2), "$\\beta$"},
        {QChar(0x03BB), "$\\lambda$"}, {QChar(0x03B5), "$\\epsilon$"}, {QChar(0x03C3), "$\\sigma$"},
        {QChar(0x00D7), "$\\times$"},  {QChar(0x2212), "$-$"},         {QChar(0x2013), "--"},
        {QChar(0x2014), "---"},        {QChar(0x2026), "\\ldots{}"},   {QChar(0x2192), "$\\rightarrow$"},
        {QChar(0x00B1), "$\\pm$"},     {QChar(0x2264), "$\\leq$"},     {QChar(0x2265), "$\\geq$"},
        {QChar(0x00B7), "$\\cdot$"},   {QChar(0x2248), "$\\approx$"}};
    QByteArray out;
    for (const QChar c : text) {
        if (const auto it = symbols.find(c); it != symbols.end()) out += it->second;
        else if (c == '\\') out += "\\textbackslash{}";
        else if (QByteArrayView("&%$#_{}").contains(c.toLatin1()) && c.unicode() < 128)
            out += QByteArray("\\") + c.toLatin1();
        else if (c == '~') out += "\\textasciitilde{}";
        else if (c == '^') out += "\\textasciicircum{}";
        else if (c == '\n') out += "\\\\ ";
        else out += QString(c).toUtf8();
    }
    return out;
}

QByteArray PgfplotsDocument::number(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    return QByteArray::number(value, 'g', 9);
}

QByteArray PgfplotsDocument::millimetres(double mm) { return QByteArray::number(mm, 'f', 1) + "mm"; }

QByteArray PgfplotsDocument::stem(const QString& name) {
    QByteArray slug;
    for (const QChar c : name.toLower()) slug += c.isLetterOrNumber() && c.unicode() < 128 ? c.toLatin1() : '-';
    while (slug.contains("--")) slug.replace("--", "-");
    if (slug.startsWith('-')) slug.remove(0, 1);
    if (slug.endsWith('-')) slug.chop(1);
    if (slug.isEmpty()) slug = "series" + QByteArray::number(usedStems_.size());
    QByteArray unique = slug;
    for (int n = 2; usedStems_.count(unique); ++n) unique = slug + "-" + QByteArray::number(n);
    usedStems_[unique] = true;
    return unique;
}

void PgfplotsDocument::addColumn(const QByteArray& name, std::vector<double> values) {
    columns_.emplace_back(name, std::move(values));
}

void PgfplotsDocument::beginAxis(const QByteArray& options) { body_ += "\\begin{axis}[" + options + "]\n"; }

void PgfplotsDocument::addPlot(const QByteArray& style, const QByteArray& xColumn, const QByteArray& yColumn,
                               const QByteArray& tableOptions) {
    body_ += "\\addplot[" + style + "] table[x=" + xColumn + ", y=" + yColumn + tableOptions + ", col sep=comma] {" +
             csvName_.toUtf8() + "};\n";
}

void PgfplotsDocument::addLegendEntry(const QString& text) { body_ += "\\addlegendentry{" + latex(text) + "}\n"; }

void PgfplotsDocument::addFillBetween(const QByteArray& style, const QByteArray& pathA, const QByteArray& pathB) {
    body_ += "\\addplot[" + style + ", forget plot] fill between[of=" + pathA + " and " + pathB + "];\n";
}

void PgfplotsDocument::addNode(const QByteArray& style, const QByteArray& at, const QString& text) {
    body_ += "\\node[" + style + "] at " + at + " {" + latex(text) + "};\n";
}

void PgfplotsDocument::endAxis() { body_ += "\\end{axis}\n"; }

PgfplotsFiles PgfplotsDocument::render(const QString& title, double widthMm, double heightMm) const {
    QByteArray tex;
    tex += "% " + latex(title).replace('\n', ' ') + "\n";
    tex += "% pgfplots figure written by Momentum Lab, " + QByteArray::number(widthMm, 'f', 1) + " mm x " +
           QByteArray::number(heightMm, 'f', 1) + " mm; it reads its points from " + csvName_.toUtf8() +
           " (beside this file).\n";
    tex += "% Compile it alone (pdflatex), or paste the tikzpicture into a document that loads pgfplots\n";
    tex += "% with \\usepgfplotslibrary{fillbetween}.\n";
    // preview (loaded after tikz, whose environment it wraps) crops the page to the picture as the
    // standalone class does, but comes in Debian's 250 kB preview-latex-style, not the 80 MB texlive-latex-extra.
    tex +=
        "\\documentclass{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage{pgfplots}\n\\pgfplotsset{compat=1.16}\n"
        "\\usepgfplotslibrary{fillbetween}\n\\usepackage[active,tightpage]{preview}\n\\PreviewEnvironment{tikzpicture}\n"
        "\\setlength\\PreviewBorder{2pt}\n\\begin{document}\n\\begin{tikzpicture}\n";
    tex += body_;
    tex += "\\end{tikzpicture}\n\\end{document}\n";

    QByteArray csv;
    std::size_t rows = 0;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
        csv += (c ? "," : "") + columns_[c].first;
        rows = std::max(rows, columns_[c].second.size());
    }
    csv += "\n";
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < columns_.size(); ++c)
            csv += (c ? "," : "") + number(r < columns_[c].second.size() ? columns_[c].second[r] : NAN);
        csv += "\n";
    }
    return {tex, csv};
}

void PgfplotsDocument::save(const QString& texPath, const QString& title, double widthMm, double heightMm) const {
    const PgfplotsFiles files = render(title, widthMm, heightMm);
    writeFileAtomically(QFileInfo(texPath).dir().filePath(csvName_), files.csv);
    writeFileAtomically(texPath, files.tex);
}

}  // namespace ml
