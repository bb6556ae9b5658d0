#include "study/StudyRunDialog.h"

#include "AppSettings.h"
#include "common/Mailbox.h"
#include "study/StudyAggregate.h"
#include "study/StudyRunner.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include <cmath>

namespace ml {

StudyRunDialog::StudyRunDialog(QWidget* parent)
    : QDialog(parent), study_(new QComboBox(this)), folder_(new QLineEdit(this)), jobs_(new QSpinBox(this)),
      plan_(new QLabel(this)), progress_(new QProgressBar(this)), status_(new QLabel(this)),
      startButton_(new QPushButton(tr("Start"), this)), cancelButton_(new QPushButton(tr("Cancel"), this)),
      mailbox_(new Mailbox(this)) {
    setWindowTitle(tr("Run a study"));
    study_->setEditable(true);
    study_->setObjectName("studyFile");
    for (const QString& name : QDir(":/studies").entryList({"*.json"}, QDir::Files, QDir::Name))
        study_->addItem(tr("shipped: %1").arg(QFileInfo(name).completeBaseName()), ":/studies/" + name);
    folder_->setObjectName("folder");
    folder_->setPlaceholderText(tr("the study folder (--out DIR): new, or a study to resume"));
    jobs_->setRange(1, 256);
    jobs_->setValue(QThread::idealThreadCount());
    jobs_->setToolTip(tr("Worker threads, each training one trial at a time (--jobs)"));
    plan_->setWordWrap(true);
    status_->setWordWrap(true);
    cancelButton_->setEnabled(false);

    auto* browseStudy = new QPushButton(tr("…"), this);
    auto* browseFolder = new QPushButton(tr("…"), this);
    auto* studyRow = new QHBoxLayout;
    studyRow->addWidget(study_, 1);
    studyRow->addWidget(browseStudy);
    auto* folderRow = new QHBoxLayout;
    folderRow->addWidget(folder_, 1);
    folderRow->addWidget(browseFolder);
    auto* form = new QFormLayout;
    form->addRow(tr("Study file"), studyRow);
    form->addRow(tr("Folder"), folderRow);
    form->addRow(tr("Threads"), jobs_);
    auto* buttons = new QDialogButtonBox(this);
    buttons->addButton(startButton_, QDialogButtonBox::ActionRole);
    buttons->addButton(cancelButton_, QDialogButtonBox::ActionRole);
    buttons->addButton(QDialogButtonBox::Close);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(plan_);
    layout->addWidget(progress_);
    layout->addWidget(status_);
    layout->addWidget(buttons);

    connect(browseStudy, &QPushButton::clicked, this, [this] {
        const QString file =
            QFileDialog::getOpenFileName(this, tr("Study file"), AppSettings::lastDirectory(), tr("Study (*.json)"));
        if (!file.isEmpty()) study_->setCurrentText(file);
    });
    connect(browseFolder, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Study folder"), AppSettings::lastDirectory());
        if (!dir.isEmpty()) folder_->setText(dir);
    });
    connect(study_, &QComboBox::currentTextChanged, this, &StudyRunDialog::describePlan);
    connect(folder_, &QLineEdit::textChanged, this, &StudyRunDialog::describePlan);
    connect(startButton_, &QPushButton::clicked, this, &StudyRunDialog::start);
    connect(cancelButton_, &QPushButton::clicked, this, &StudyRunDialog::cancel);
    connect(buttons, &QDialogButtonBox::rejected, this, &StudyRunDialog::reject);
    describePlan();
    resize(560, sizeHint().height());
}

StudyRunDialog::~StudyRunDialog() {
    if (!worker_) return;
    control_->requestStop();
    worker_->wait();          // the trials in flight end at their next step
    mailbox_->dropPending();  // the worker's last post orders its end before the delete (for TSan)
    delete worker_;
}

void StudyRunDialog::setStudy(const QString& studyFile, const QString& folder, int jobs) {
    study_->setCurrentText(studyFile);
    folder_->setText(folder);
    jobs_->setValue(jobs);
}

namespace {

// The combo box shows "shipped: NAME" for a shipped study and the path for a typed or chosen file.
QString studyPath(const QComboBox* box) {
    const int index = box->findText(box->currentText());
    return index >= 0 && box->itemData(index).isValid() ? box->itemData(index).toString()
                                                        : box->currentText().trimmed();
}

}  // namespace

void StudyRunDialog::describePlan() {
    try {
        const StudyPlan plan(loadStudy(studyPath(study_)));
        QString text = tr("%1: %2 trials (%3 tuning, %4 final runs) on %5 task(s), %6 optimizers.")
                           .arg(QString::fromStdString(plan.study().name))
                           .arg(plan.trialCount())
                           .arg(plan.tuningCount())
                           .arg(plan.trialCount() - plan.tuningCount())
                           .arg(plan.study().tasks.size())
                           .arg(plan.study().optimizers.size());
        const QString folder = folder_->text().trimmed();
        if (!folder.isEmpty() && QFileInfo::exists(QDir(folder).filePath(studyfolder::kStudy)))
            text +=
                tr(" %1 of them still to run in this folder.").arg(pendingTrials(StudyLayout(folder, plan)).count());
        plan_->setText(text);
        plan_->setStyleSheet({});
        startButton_->setEnabled(!running() && !folder.isEmpty());
    } catch (const std::exception& error) {
        plan_->setText(QString::fromStdString(error.what()));
        plan_->setStyleSheet("color: #b00020");
        startButton_->setEnabled(false);
    }
}

void StudyRunDialog::start() {
    if (running()) return;
    const QString studyFile = studyPath(study_);
    const QString folder = folder_->text().trimmed();
    const int jobs = jobs_->value();
    done_ = total_ = 0;
    started_ = std::chrono::steady_clock::now();
    control_ = std::make_unique<RunControl>();
    progress_->setRange(0, 0);  // busy until the plan is known
    status_->setText(tr("Preparing %1…").arg(folder));
    startButton_->setEnabled(false);
    cancelButton_->setEnabled(true);
    worker_ = QThread::create([this, control = control_.get(), studyFile, folder, jobs] {
        QString error;
        try {
            const Study study = loadStudy(studyFile);
            prepareStudyFolder(studyFile, folder);
            const StudyPlan plan(study);
            const StudyLayout layout(folder, plan);
            const PendingTrials pending = pendingTrials(layout);
            mailbox_->post([this, total = pending.count()] {
                total_ = total;
                progress_->setRange(0, std::max(1, total));
                progress_->setValue(0);
            });
            runPendingTrials(layout, pending, jobs, *control,
                             [this](int) { mailbox_->post([this] { trialFinished(); }); });
            if (!control->stopRequested()) aggregateStudy(layout);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        const bool stopped = control->stopRequested();
        mailbox_->post([this, error, stopped] { workerEnded(error, stopped); });
    });
    mailbox_->startPolling();  // only while a worker can post
    worker_->start();
}

void StudyRunDialog::trialFinished() {
    ++done_;
    progress_->setValue(done_);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    const double eta = done_ > 0 ? seconds / done_ * (total_ - done_) : 0;
    status_->setText(tr("%1 of %2 trials, %3 trials/s, about %4 s left")
                         .arg(done_)
                         .arg(total_)
                         .arg(done_ / std::max(seconds, 1e-9), 0, 'g', 3)
                         .arg(std::ceil(eta)));
}

void StudyRunDialog::workerEnded(const QString& error, bool stopped) {
    worker_->wait();
    delete worker_;
    worker_ = nullptr;
    mailbox_->stopPolling();
    cancelButton_->setEnabled(false);
    progress_->setRange(0, std::max(1, total_));
    describePlan();
    const QString folder = folder_->text().trimmed();
    if (!error.isEmpty()) {
        status_->setText(tr("Failed: %1").arg(error));
        Q_EMIT failed(error);
    } else if (stopped) {
        status_->setText(
            tr("Cancelled after %1 of %2 trials; finished trials are kept, Start resumes.").arg(done_).arg(total_));
    } else {
        progress_->setValue(progress_->maximum());
        status_->setText(
            tr("Done: %1 trials run, results in %2.").arg(done_).arg(QDir(folder).filePath(studyfolder::kResults)));
        Q_EMIT finished(folder);
    }
}

void StudyRunDialog::cancel() {
    if (!running()) return;
    control_->requestStop();
    status_->setText(tr("Cancelling: the trials in flight stop at their next step…"));
}

void StudyRunDialog::reject() {
    if (running()) {
        cancel();
        return;  // closes once the worker ended (press Close again)
    }
    QDialog::reject();
}

}  // namespace ml
