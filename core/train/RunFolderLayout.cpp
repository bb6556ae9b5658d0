#include "train/RunFolderLayout.h"

#include "InputError.h"

#include <QDir>

#include <map>

namespace ml {

QString runFileName(const std::string& label) {
    QString name = QString::fromStdString(label);
    for (QChar& c : name)
        if (!c.isLetterOrNumber() && !QStringView(u"-_.+=@").contains(c)) c = '_';
    if (name.startsWith('.')) name[0] = '_';
    return name;
}

void checkRunFileNames(const std::vector<std::string>& labels) {
    const char* const reserved[] = {runfolder::kConfig,       runfolder::kMetrics,   runfolder::kInitialWeights,
                                    runfolder::kFinalWeights, runfolder::kSummary,   runfolder::kSnapshots,
                                    runfolder::kDiagnostics,  runfolder::kCurvature, runfolder::kHessianSpectrum};
    std::map<QString, std::size_t> taken;  // case-folded name -> run
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const std::string field = "runs[" + std::to_string(i) + "].label '" + labels[i] + "'";
        const QString name = runFileName(labels[i]);
        if (name.isEmpty()) throw InputError("runs[" + std::to_string(i) + "].label: expected a non-empty label");
        if (name.toUtf8().size() > kMaxRunFileNameBytes)
            throw InputError(field + ": too long; expected at most " + std::to_string(kMaxRunFileNameBytes) +
                             " bytes (it names the run's folder)");
        for (const QString file : reserved)
            if (name.compare(file, Qt::CaseInsensitive) == 0 ||
                name.compare(file.section('.', 0, 0), Qt::CaseInsensitive) == 0)
                throw InputError(field + ": names a file of the run folder (" + file.toStdString() +
                                 "); choose another label");
        const auto [previous, inserted] = taken.emplace(name.toCaseFolded(), i);
        if (!inserted)
            throw InputError(field + ": its folder name '" + name.toStdString() + "' is that of runs[" +
                             std::to_string(previous->second) + "] ('" + labels[previous->second] +
                             "'); expected labels that differ once characters other than letters, digits and "
                             "- _ . + = @ become '_' and case is ignored");
    }
}

RunFolderLayout::RunFolderLayout(const QString& root, std::vector<std::string> labels)
    : root_(root), labels_(std::move(labels)) {}

QString RunFolderLayout::configFile() const { return QDir(root_).filePath(runfolder::kConfig); }
QString RunFolderLayout::summaryFile() const { return QDir(root_).filePath(runfolder::kSummary); }

// The per-run rule: a single run lives in DIR itself, several in DIR/<label>.
QString RunFolderLayout::relativeInRun(int run, const char* name) const {
    return runCount() == 1 ? QString(name) : runFileName(labels_.at(run)) + '/' + name;
}

QString RunFolderLayout::runDirectory(int run) const {
    return QDir::cleanPath(QDir(root_).filePath(relativeInRun(run, ".")));  // "DIR/label/." -> "DIR/label"
}

QString RunFolderLayout::inRun(int run, const char* name) const {
    return QDir(root_).filePath(relativeInRun(run, name));
}
QString RunFolderLayout::runConfigFile(int run) const { return inRun(run, runfolder::kConfig); }
QString RunFolderLayout::metricsFile(int run) const { return inRun(run, runfolder::kMetrics); }
QString RunFolderLayout::initialWeightsFile(int run) const { return inRun(run, runfolder::kInitialWeights); }
QString RunFolderLayout::finalWeightsFile(int run) const { return inRun(run, runfolder::kFinalWeights); }
QString RunFolderLayout::runSummaryFile(int run) const { return inRun(run, runfolder::kSummary); }
QString RunFolderLayout::snapshotsFile(int run) const { return inRun(run, runfolder::kSnapshots); }
QString RunFolderLayout::diagnosticsFile(int run) const { return inRun(run, runfolder::kDiagnostics); }
QString RunFolderLayout::curvatureFile(int run) const { return inRun(run, runfolder::kCurvature); }
QString RunFolderLayout::hessianSpectrumFile(int run) const { return inRun(run, runfolder::kHessianSpectrum); }
QString RunFolderLayout::stateDirectory(int run) const {
    return QDir(runDirectory(run)).filePath(runfolder::kStateFolder);
}
QString RunFolderLayout::stateFile(int run, long step) const { return trainingStateFile(runDirectory(run), step); }

QString trainingStateFile(const QString& runDirectory, long step) {
    return QDir(runDirectory).filePath(QString("%1/step-%2.json.gz").arg(runfolder::kStateFolder).arg(step));
}

std::string RunFolderLayout::initialWeightsRelative(int run) const {
    return relativeInRun(run, runfolder::kInitialWeights).toStdString();
}

}  // namespace ml
