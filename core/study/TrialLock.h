#pragma once
// One trial written by one process at a time: two `study --trial K` for the same K (a resubmitted
// Slurm task, a second terminal) would clear and write the same folder together. Each trial being
// trained holds a lock on its own byte of DIR/trials.lock (an open-file-description lock,
// fcntl F_OFD_SETLK), from before its folder is cleared until its trial.json is written; the
// kernel releases it when the holder ends, however it ends.
#include "study/StudyLayout.h"

namespace ml {

class TrialLock {
public:
    // Throws InputError naming the trial and its folder when another process holds it, FileError
    // when the lock file cannot be opened.
    TrialLock(const StudyLayout& layout, int trial);
    ~TrialLock();
    TrialLock(TrialLock&& other) noexcept;
    TrialLock& operator=(TrialLock&&) = delete;
    TrialLock(const TrialLock&) = delete;

private:
    int descriptor_ = -1;
};

}  // namespace ml
