#pragma once
// Where the session's training stands, as the window's controls and state line see it.
namespace ml {

enum class SessionState {
    Idle,  // nothing trained yet (or reset)
    Running,
    Paused,
    Stopping,  // stop requested, the worker has not ended yet
    Finished,  // the last training ended (done, stopped, diverged or failed)
};

}  // namespace ml
