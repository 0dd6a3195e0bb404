import CLinux

/// A detached POSIX thread running a closure: for the jobs that may block for a long time
/// or forever (statvfs of a hung mount, fsync on a slow disk), so they never hold up an
/// event loop. The closure must hold only what it shares with its owner (a ConditionLock),
/// never the owner itself, so that the owner can go away and tell the thread to stop.
public enum WorkerThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    public static func start(stackSize: Int = 256 << 10, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let result = clinux_start_detached_thread({ context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context, stackSize)
        if result != 0 {
            Unmanaged<Body>.fromOpaque(context).release()
            throw SystemError(call: "pthread_create", errno: result)
        }
    }
}
