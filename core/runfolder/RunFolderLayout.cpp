#include "runfolder/RunFolderLayout.h"

#include <QDir>

namespace ml {

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
