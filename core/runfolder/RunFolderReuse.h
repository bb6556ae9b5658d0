#pragma once
// Writing a run into a folder that already holds one. The rule, for `train --out` and every other
// writer of run folders: the folder is new (or empty), or it is a run folder (its config.json
// readable), whose files -- those RunFolderLayout names, for the runs of its config.json, and each
// run's state/ -- are removed once the new run's config.json has replaced the earlier one (so a
// full disk, which fails that first write, leaves the earlier run whole) and before anything else
// is written: no file of the earlier run (snapshots.bin, diagnostics.csv, a summary.csv that says
// "done") passes for the new run's. Files the project does not own stay. A study folder or a study
// trial's folder is refused.
#include <QString>

#include <string>
#include <vector>

namespace ml {

// Throws InputError naming `what` (e.g. "--out runs/a") unless `folder` may receive a run: missing,
// empty, holding no file of a run or a study, or a run folder whose config.json can be read.
void checkRunFolderReusable(const QString& folder, const std::string& what);

// The labels of the runs an earlier run folder at `folder` holds (its config.json's); empty when
// it holds none. Read before the new config.json replaces the earlier one. Throws InputError when
// that config.json cannot be read (checkRunFolderReusable refuses such a folder first).
std::vector<std::string> earlierRunLabels(const QString& folder);

// Removes what the earlier runs `labels` wrote into `folder`, all but config.json (the new run's by
// then). Links among those files are removed themselves, never followed. Throws FileError naming a
// file that cannot go.
void clearEarlierRuns(const QString& folder, const std::vector<std::string>& labels);

}  // namespace ml
