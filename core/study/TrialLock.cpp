#include "study/TrialLock.h"

#include "InputError.h"
#include "io/FileError.h"

#include <QDir>
#include <QFile>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace ml {

TrialLock::TrialLock(const StudyLayout& layout, int trial) {
    const QString path = QDir(layout.root()).filePath(studyfolder::kTrialLocks);
    if (!QDir().mkpath(layout.root())) throw FileError(layout.root(), "cannot create the folder");
    descriptor_ = ::open(QFile::encodeName(path).constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (descriptor_ < 0) throw FileError(path, qt_error_string(errno));
    struct flock region {};
    region.l_type = F_WRLCK;
    region.l_whence = SEEK_SET;
    region.l_start = trial;
    region.l_len = 1;
    if (::fcntl(descriptor_, F_OFD_SETLK, &region) == 0) return;
    const int error = errno;
    ::close(descriptor_);
    if (error == EAGAIN || error == EACCES)
        throw InputError("trial " + std::to_string(trial) + " (" + layout.trialDirectory(trial).toStdString() +
                         "): is being written by another process; wait for it to finish (or stop it) first");
    throw FileError(path, "cannot lock: " + qt_error_string(error));
}

TrialLock::TrialLock(TrialLock&& other) noexcept : descriptor_(other.descriptor_) { other.descriptor_ = -1; }

TrialLock::~TrialLock() {
    if (descriptor_ >= 0) ::close(descriptor_);  // closing the description releases its lock
}

}  // namespace ml
