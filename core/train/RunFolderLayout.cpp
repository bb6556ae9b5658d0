#include "train/RunFolderLayout.h"

#include <QDir>

namespace ml {

RunFolderLayout::RunFolderLayout(const QString& root, std::vector<std::string> labels)
    : root_(root), labels_(std::move(labels)) {}

QString RunFolderLayout::configFile() const { return QDir(root_).filePath(runfolder::kConfig); }
QString RunFolderLayout::summaryFile() const { return QDir(root_).filePath(runfolder::kSummary); }

// The per-run rule: a single run lives in DIR itself, several in DIR/<label>.
QString RunFolderLayout::relativeInRun(int run, const char* name) const {
    return runCount() == 1 ? QString(name) : QString::fromStdString(labels_.at(run)) + '/' + name;
}

QString RunFolderLayout::runDirectory(int run) const {
    return QDir::cleanPath(QDir(root_).filePath(relativeInRun(run, ".")));  // "DIR/label/." -> "DIR/label"
}

QString RunFolderLayout::inRun(int run, const char* name) const { return QDir(root_).filePath(relativeInRun(run, name)); }
QString RunFolderLayout::runConfigFile(int run) const { return inRun(run, runfolder::kConfig); }
QString RunFolderLayout::metricsFile(int run) const { return inRun(run, runfolder::kMetrics); }
QString RunFolderLayout::initialWeightsFile(int run) const { return inRun(run, runfolder::kInitialWeights); }
QString RunFolderLayout::finalWeightsFile(int run) const { return inRun(run, runfolder::kFinalWeights); }

std::string RunFolderLayout::initialWeightsRelative(int run) const {
    return relativeInRun(run, runfolder::kInitialWeights).toStdString();
}

}  // namespace ml
