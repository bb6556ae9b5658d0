#include "train/RunFolderLayout.h"

#include <QDir>

namespace ml {

RunFolderLayout::RunFolderLayout(const QString& root, std::vector<std::string> labels)
    : root_(root), labels_(std::move(labels)) {}

QString RunFolderLayout::configFile() const { return QDir(root_).filePath(runfolder::kConfig); }
QString RunFolderLayout::summaryFile() const { return QDir(root_).filePath(runfolder::kSummary); }

QString RunFolderLayout::runDirectory(int run) const {
    return runCount() == 1 ? root_ : QDir(root_).filePath(QString::fromStdString(labels_.at(run)));
}

QString RunFolderLayout::inRun(int run, const char* name) const { return QDir(runDirectory(run)).filePath(name); }
QString RunFolderLayout::runConfigFile(int run) const { return inRun(run, runfolder::kConfig); }
QString RunFolderLayout::metricsFile(int run) const { return inRun(run, runfolder::kMetrics); }
QString RunFolderLayout::initialWeightsFile(int run) const { return inRun(run, runfolder::kInitialWeights); }
QString RunFolderLayout::finalWeightsFile(int run) const { return inRun(run, runfolder::kFinalWeights); }

std::string RunFolderLayout::initialWeightsRelative(int run) const {
    return QDir(root_).relativeFilePath(initialWeightsFile(run)).toStdString();
}

}  // namespace ml
