import CLinux

/// Process-wide settings the daemon makes once at start-up.
public enum ProcessControl {
    /// Blocks signals so that an event loop can take them as events (signalfd); threads
    /// started afterwards inherit the mask.
    public static func blockSignals(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Unblocks every signal and restores default dispositions except for ignored ones we
    /// set later. A program is started with its parent's signal mask, and some parents
    /// (thread pools, some status bars and supervisors) have most signals blocked: then
    /// SIGTERM would not stop us.
    public static func resetSignalMask() {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
    }

    public static func ignore(_ signal: Int32) {
        clinux_ignore_signal(signal)
    }

    /// Raises the soft limit on open files towards the hard limit (systemd services start at
    /// 1024 soft), so that the connection limit, not the kernel, decides who is refused.
    @discardableResult
    public static func raiseOpenFileLimit(to wanted: UInt64) -> UInt64 {
        var limit = rlimit()
        guard getrlimit(clinux_rlimit_nofile, &limit) == 0 else { return 0 }
        let target = min(rlim_t(wanted), limit.rlim_max)
        if limit.rlim_cur < target {
            limit.rlim_cur = target
            setrlimit(clinux_rlimit_nofile, &limit)
        }
        return UInt64(limit.rlim_cur)
    }

    public static var userID: UInt32 { getuid() }
}

