#include "experiment/RunLabels.h"

#include "InputError.h"

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

}  // namespace ml
