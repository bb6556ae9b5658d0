#include "runfolder/RunFolderReuse.h"

#include "InputError.h"
#include "io/Files.h"
#include "experiment/ExperimentJson.h"
#include "runfolder/RunFolderLayout.h"

#include <QDir>
#include <QFileInfo>

namespace ml {

namespace {

// Names of a study folder and of a study trial's folder (study/StudyLayout.h), which a run must not
// be written into: the study would take the run for its own.
const char* const kStudyFiles[] = {"study.json", "trial.json"};

// The run files of one run's folder (RunFolderLayout's names). A run's subfolder that is a link is
// removed itself: the files it points at may belong to another folder.
void clearRun(const RunFolderLayout& layout, int run) {
    if (layout.runCount() > 1 && QFileInfo(layout.runDirectory(run)).isSymLink()) {
        removePath(layout.runDirectory(run));
        return;
    }
    for (const QString& file : {layout.metricsFile(run), layout.initialWeightsFile(run), layout.finalWeightsFile(run),
                                layout.runSummaryFile(run), layout.snapshotsFile(run), layout.diagnosticsFile(run),
                                layout.curvatureFile(run), layout.hessianSpectrumFile(run), layout.stateDirectory(run)})
        removePath(file);
    if (layout.runCount() > 1) {
        removePath(layout.runConfigFile(run));
        // A run's subfolder goes when nothing else is left in it.
        if (QDir(layout.runDirectory(run)).isEmpty()) removePath(layout.runDirectory(run));
    }
}

}  // namespace

void checkRunFolderReusable(const QString& folder, const std::string& what) {
    if (!QFileInfo(folder).isDir()) return;
    for (const char* name : kStudyFiles)
        if (QFileInfo::exists(QDir(folder).filePath(name)))
            throw InputError(what + ": holds " + name + " (a study's folder); write the run into a folder of its own");
    const QString config = QDir(folder).filePath(runfolder::kConfig);
    if (!QFileInfo::exists(config)) return;
    try {
        earlierRunLabels(folder);
    } catch (const InputError& error) {
        throw InputError(what +
                         ": holds a run folder whose config.json cannot be read, so its files cannot be told "
                         "apart (" +
                         error.what() + "); write into a new folder");
    }
}

std::vector<std::string> earlierRunLabels(const QString& folder) {
    const QString config = QDir(folder).filePath(runfolder::kConfig);
    std::vector<std::string> labels;
    if (!QFileInfo::exists(config)) return labels;
    for (const RunSpec& run : loadExperiment(config).runs) labels.push_back(run.label);
    return labels;
}

void clearEarlierRuns(const QString& folder, const std::vector<std::string>& labels) {
    if (labels.empty()) return;
    const RunFolderLayout layout(folder, labels);
    for (int run = 0; run < layout.runCount(); ++run) clearRun(layout, run);
    removePath(layout.summaryFile());
}

}  // namespace ml
