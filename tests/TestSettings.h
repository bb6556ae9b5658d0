#pragma once
// The app's settings (QSettings "MomentumLab"/"momentum-lab": layout, last experiment) of a test
// process go to a folder of its own, removed at exit. QStandardPaths' test mode alone shares one
// folder (~/.qttest) among all test processes: test_ui and test_twin_views, run side by side by
// `ctest -j2` (or by another checkout's tests), overwrote each other's remembered experiment.
#include <QDir>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

// Call first in initTestCase, before any QSettings is made. The run folders the app keeps of its
// trainings (AppSettings::runsFolder) go there too, never into the user's data location.
inline void useOwnSettingsFolder() {
    static QTemporaryDir folder;
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, folder.path());
    qputenv("MOMENTUM_LAB_RUNS_DIR", QDir(folder.path()).filePath("runs").toUtf8());
}
