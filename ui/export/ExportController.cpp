#include "export/ExportController.h"

#include "AppSettings.h"
#include "export/FigureSizeDialog.h"
#include "InputError.h"
#include "model/RunComparison.h"
#include "io/Files.h"
#include "experiment/ExperimentJson.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QMenu>
#include <QMessageBox>

#include <exception>

namespace ml {

ExportController::ExportController(QWidget* window, const RunComparison& runs, FigureProvider figures,
                                   ExperimentProvider experiment)
    : QObject(window), window_(window), runs_(runs), figures_(std::move(figures)), experiment_(std::move(experiment)) {}

void ExportController::populate(QMenu* menu) {
    fill(menu);
    // Figures come and go (the loss landscape once computed): the list is rebuilt when it opens.
    connect(menu, &QMenu::aboutToShow, this, [this, menu] {
        menu->clear();
        fill(menu);
    });
}

void ExportController::fill(QMenu* menu) {
    for (const NamedFigure& figure : figures_()) {
        QAction* action = menu->addAction(figure.shown() ? tr("%1…").arg(figure.caption)
                                                         : tr("%1 (%2)").arg(figure.caption, figure.leftOutBecause));
        action->setEnabled(figure.shown());
        const QString name = figure.name;
        connect(action, &QAction::triggered, this, [this, name] {
            for (const NamedFigure& current : figures_())
                if (current.name == name) exportFigure(current);
        });
    }
    menu->addSeparator();
    connect(menu->addAction(tr("Run data as CSV…")), &QAction::triggered, this, &ExportController::exportRunData);
    connect(menu->addAction(tr("Experiment as JSON…")), &QAction::triggered, this, &ExportController::exportExperiment);
    menu->addSeparator();
    QAction* report = menu->addAction(tr("Report (all of these)…"));
    report->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(report, &QAction::triggered, this, &ExportController::exportReport);
}

bool ExportController::run(const QString& what, const std::function<void()>& action) {
    try {
        action();
        Q_EMIT message(tr("Exported %1").arg(what));
        return true;
    } catch (const std::exception& error) {
        QMessageBox::warning(window_, tr("Export failed"), QString::fromStdString(error.what()));
        return false;
    }
}

QString ExportController::startDirectory() const {
    const QString exported = AppSettings::lastExportDirectory();
    if (!exported.isEmpty() && QFileInfo(exported).isDir()) return exported;
    if (!runs_.source().isEmpty() && QFileInfo(runs_.source()).isDir()) return runs_.source();
    return AppSettings::lastDirectory();
}

void ExportController::rememberExportDirectory(const QString& directory) const {
    AppSettings::setLastExportDirectory(directory);
}

void ExportController::exportFigure(const NamedFigure& figure) {
    const QString start = QDir(startDirectory()).filePath(figure.name + ".png");
    QString selectedFilter;
    const QString path = QFileDialog::getSaveFileName(
        window_, tr("Export %1").arg(figure.caption), start,
        tr("PNG image (*.png);;PDF document (*.pdf);;SVG drawing (*.svg)") +
            (figure.figure.plot() ? tr(";;pgfplots/TikZ with its CSV (*.tex)") : QString()),
        &selectedFilter);
    if (path.isEmpty()) return;
    rememberExportDirectory(QFileInfo(path).absolutePath());
    const std::optional<FigureOptions> options = FigureSizeDialog::ask(window_, AppSettings::figureOptions());
    if (!options) return;
    AppSettings::saveFigureOptions(*options);
    FigureOptions titled = *options;
    titled.title = figure.caption;
    run(path, [&] { figure.figure.save(path, titled); });
}

void ExportController::exportRunData() {
    if (runs_.history().runCount() == 0) {
        QMessageBox::information(window_, tr("Export run data"), tr("There are no runs to export yet."));
        return;
    }
    const QString directory =
        QFileDialog::getExistingDirectory(window_, tr("Folder for the CSV files"), startDirectory());
    if (directory.isEmpty()) return;
    rememberExportDirectory(directory);
    run(directory, [&] {
        const QDir dir(directory);
        for (int r = 0; r < runs_.history().runCount(); ++r)
            writeFileAtomically(dir.filePath(runs_.metricsCsvFileName(r)), runs_.metricsCsv(r));
        writeFileAtomically(dir.filePath("summary.csv"), runs_.summaryCsv());
    });
}

void ExportController::exportExperiment() {
    QJsonObject json;
    try {
        json = experiment_();
    } catch (const InputError& error) {
        QMessageBox::warning(window_, tr("Invalid experiment"), QString::fromStdString(error.what()));
        return;
    }
    const QString start = QDir(AppSettings::lastDirectory()).filePath("experiment.json");
    const QString path = QFileDialog::getSaveFileName(window_, tr("Save experiment"), start, tr("Experiment (*.json)"));
    if (path.isEmpty()) return;
    AppSettings::setLastDirectory(QFileInfo(path).absolutePath());
    run(path, [&] { writeFileAtomically(path, QJsonDocument(json).toJson(QJsonDocument::Indented)); });
}

void ExportController::exportReport() {
    const QString directory = QFileDialog::getExistingDirectory(window_, tr("Folder for the report"), startDirectory());
    if (directory.isEmpty()) return;
    rememberExportDirectory(directory);
    const std::optional<FigureOptions> options = FigureSizeDialog::ask(window_, AppSettings::figureOptions());
    if (!options) return;
    AppSettings::saveFigureOptions(*options);
    run(QDir(directory).filePath("index.html"), [&] { writeReport(directory, *options); });
}

QStringList ExportController::writeReport(const QString& directory, const FigureOptions& options) const {
    return ReportWriter(runs_, figures_(), options).write(directory);
}

}  // namespace ml
