#pragma once
// "Run study…": the same study the CLI takes (`momentum-lab-cli study STUDY.json --out DIR
// --jobs N`: a study file or a shipped study, a folder, worker threads) run from the window. The
// trials run on a worker thread (core's runner, its own N threads) with a progress bar, the ETA and
// Cancel (the trials in flight stay unfinished; starting again resumes, as the CLI does). When
// both phases finished, the results are aggregated and `finished(folder)` is emitted.
#include "train/RunControl.h"

#include <QDialog>

#include <atomic>
#include <chrono>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QThread;

namespace ml {

class Mailbox;

class StudyRunDialog : public QDialog {
    Q_OBJECT
public:
    explicit StudyRunDialog(QWidget* parent = nullptr);
    ~StudyRunDialog() override;

    // The form, for tests and for remembering: a study file (or ":/studies/…") and the folder.
    void setStudy(const QString& studyFile, const QString& folder, int jobs);
    bool running() const { return worker_ != nullptr; }

public Q_SLOTS:
    void start();
    void cancel();  // stops the trials in flight; the dialog stays open

Q_SIGNALS:
    void finished(const QString& folder);  // both phases done and aggregated
    void failed(const QString& message);

protected:
    void reject() override;  // Escape / close: cancel a running study first

private:
    void describePlan();
    void trialFinished();
    void workerEnded(const QString& error, bool stopped);

    QComboBox* study_;
    QLineEdit* folder_;
    QSpinBox* jobs_;
    QLabel* plan_;
    QProgressBar* progress_;
    QLabel* status_;
    QPushButton* startButton_;
    QPushButton* cancelButton_;
    QThread* worker_ = nullptr;
    Mailbox* mailbox_;                     // a child: runs the worker's calls (progress, end) on the GUI thread
    std::unique_ptr<RunControl> control_;  // a fresh one per start: a last cancel must not stop the next run
    int done_ = 0, total_ = 0;
    std::chrono::steady_clock::time_point started_;
};

}  // namespace ml
