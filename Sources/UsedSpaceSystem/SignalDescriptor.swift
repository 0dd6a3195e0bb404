import CLinux
import Glibc

/// Signals taken as input on a descriptor (signalfd), so a poll loop handles them in order
/// with everything else. The signals are blocked for the whole process.
public final class SignalDescriptor {
    public let descriptor: Int32

    public init(_ signals: [Int32]) throws(SystemError) {
        ProcessControl.blockSignals(signals)
        descriptor = signals.withUnsafeBufferPointer { clinux_signalfd($0.baseAddress, Int32($0.count)) }
        guard descriptor >= 0 else { throw .current("signalfd") }
    }

    /// The signals that arrived since the last call.
    public func take() -> [Int32] {
        var signals: [Int32] = []
        while true {
            let signal = clinux_signalfd_read(descriptor)
            guard signal > 0 else { return signals }
            signals.append(signal)
        }
    }

    deinit { Glibc.close(descriptor) }
}

/// Signal numbers callers need without importing Glibc.
public enum SignalNumber {
    public static let userDefined1 = SIGUSR1
    public static let userDefined2 = SIGUSR2
}
