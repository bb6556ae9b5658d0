#include "study/StudyReport.h"

#include "export/ReportWriter.h"
#include "io/Files.h"
#include "study/StudyWindow.h"

#include <QComboBox>
#include <QDir>

#include <stdexcept>

namespace ml {

QStringList writeStudyReport(const StudyResults& results, const QString& directory, const FigureOptions& options) {
    if (!QDir().mkpath(directory)) throw std::runtime_error(directory.toStdString() + ": cannot create the folder");
    QStringList written;
    StudyWindow window(results, StudyWindowHooks{});
    window.setAttribute(Qt::WA_DeleteOnClose, false);  // on the stack
    window.resize(options.width * 2, options.height * 2);
    const auto choose = [&window](const char* name, const QString& text) {
        window.findChild<QComboBox*>(name)->setCurrentText(text);
    };
    for (const QString& task : results.tasks) {
        choose("task", task);
        std::vector<NamedFigure> figures = window.figures();
        written << writeFigureFiles(directory, figures.at(0), options);  // the band plot
        for (const QString& parameter : results.parameters) {
            choose("parameter", parameter);
            written << writeFigureFiles(directory, window.figures().at(1), options);
        }
        if (results.parameters.size() >= 2) {
            choose("heatX", results.parameters.at(0));
            choose("heatY", results.parameters.at(1));
            for (const QString& optimizer : results.optimizers) {
                choose("heatOptimizer", optimizer);
                written << writeFigureFiles(directory, window.figures().at(2), options);
                choose("parallelOptimizer", optimizer);
                written << writeFigureFiles(directory, window.figures().at(3), options);
            }
        }
    }
    if (window.figures().size() > 4) written << writeFigureFiles(directory, window.figures().at(4), options);

    // The numbers behind the figures, as aggregated.
    const QDir source(QDir(results.folder).filePath("results"));
    for (const QString& name : source.entryList({"*.csv", "*.json"}, QDir::Files, QDir::Name)) {
        writeFileAtomically(QDir(directory).filePath("results-" + name), readFileBytes(source.filePath(name)));
        written << "results-" + name;
    }
    return written;
}

}  // namespace ml
