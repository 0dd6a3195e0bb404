import CLinux

/// Signals taken as input on a descriptor (signalfd), so a poll loop handles them in order
/// with everything else. The signals are blocked for the whole process.
public final class SignalDescriptor {
    private let signals: FileDescriptor

    public init(_ numbers: [Int32]) throws(SystemError) {
        ProcessControl.blockSignals(numbers)
        let raw = numbers.withUnsafeBufferPointer { clinux_signalfd($0.baseAddress, Int32($0.count)) }
        guard raw >= 0 else { throw .current("signalfd") }
        signals = FileDescriptor(owning: raw)
    }

    public var descriptor: Int32 { signals.rawValue }

    /// The signals that arrived since the last call.
    public func take() -> [Int32] {
        var taken: [Int32] = []
        while true {
            let signal = clinux_signalfd_read(signals.rawValue)
            guard signal > 0 else { return taken }
            taken.append(signal)
        }
    }
}

/// Signal numbers callers need without importing CLinux.
public enum SignalNumber {
    public static let userDefined1 = SIGUSR1
    public static let userDefined2 = SIGUSR2
    /// What a bar, a terminal or a service manager sends to end a process.
    public static let endRequests = [SIGTERM, SIGINT, SIGHUP]
}
