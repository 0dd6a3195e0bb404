// libFuzzer target for Configuration.parse: the configuration file (usedspace.conf(5)),
// read as UTF-8 with invalid sequences replaced, as the daemon and client read it. Built only
// with USEDSPACE_FUZZ=1; bench/fuzz.sh builds and runs it. Besides "no crash", it checks:
// - an error names a line of the file (or 0 for the whole file) and its message, which goes
//   to the terminal and the journal, has no control characters;
// - a file with CRLF line ends means the same as with LF (the parser strips a trailing CR);
// - an accepted configuration is within the documented ranges, and its alert limits can be
//   described (as `config check` shows them), and its [notify] and [bar] limits can be applied
//   to extreme filesystems (the largest counts, empty, full) without trapping: a valid
//   free-size-below near 2^64 once overflowed the daemon's recovery check.
import UsedSpaceCore

private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
}

private func outcome(_ text: String) -> Result<Configuration, ConfigError> {
    Result { () throws(ConfigError) in try Configuration.parse(text) }
}

private let extremeFilesystems: [FilesystemStats] = [
    FilesystemStats(blockSize: 1, totalBlocks: .max, freeBlocks: .max, availableBlocks: .max, totalInodes: .max, freeInodes: .max),
    FilesystemStats(blockSize: 1 << 20, totalBlocks: .max >> 20, freeBlocks: 1, availableBlocks: 1, totalInodes: 0, freeInodes: 0),
    FilesystemStats(blockSize: 4096, totalBlocks: 1, freeBlocks: 0, availableBlocks: 0, totalInodes: 1, freeInodes: 0),
    FilesystemStats(blockSize: 4096, totalBlocks: 1 << 40, freeBlocks: 1 << 39, availableBlocks: 1 << 38, totalInodes: 10, freeInodes: 5),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let result = outcome(text)
    switch result {
    case .failure(let error):
        let lineCount = text.utf8.count(where: { $0 == UInt8(ascii: "\n") }) + 1
        guard (0...lineCount).contains(error.line) else { fatalError("error on line \(error.line) of \(lineCount)") }
        guard !error.description.unicodeScalars.contains(where: { isControl($0) && $0 != "\t" }) else {
            fatalError("error message with control characters: \(error.description.debugDescription)")
        }
    case .success(let configuration):
        let daemon = configuration.daemon
        guard !daemon.paths.isEmpty,
              daemon.paths.allSatisfy({ $0 == "~" || $0.hasPrefix("~/") || $0.hasPrefix("/") }),
              DaemonSettings.intervalRange.contains(daemon.intervalMicroseconds),
              DaemonSettings.timeoutRange.contains(daemon.sampleTimeoutMicroseconds),
              DaemonSettings.clientRange.contains(daemon.maximumClients)
        else { fatalError("daemon settings out of range: \(daemon)") }
        let bar = configuration.bar
        if let width = bar.barWidth, !(0...100).contains(width) { fatalError("bar-width \(width)") }
        for limit in bar.severity.warning + bar.severity.critical { _ = limit.description }
        for stats in extremeFilesystems {
            let snapshot = Snapshot(path: "/x", mountPoint: "/x", fileSystemType: "ext4", stats: stats, state: .fresh, seq: 1,
                                    sampledAt: Timestamp(secondsSinceEpoch: 0), source: .daemon)
            var alert = LowSpaceNotificationState()
            for now: Int64 in [0, 1, Int64(Int32.max)] {
                alert = configuration.notify.evaluate(snapshot, alert: alert, now: now).1
            }
            _ = configuration.notify.snoozed(alert, now: Int64(Int32.max))
            _ = bar.severity.severity(of: stats, previous: .normal)
            _ = BarBlock(snapshot, options: bar, severity: .critical, expanded: true)
        }
    }

    // The same file with CRLF line ends (only for files without CR of their own).
    if !text.unicodeScalars.contains("\r") {
        var crlf = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\n" { crlf.append("\r") }
            crlf.append(scalar)
        }
        let withCRLF = outcome(String(crlf))
        switch (result, withCRLF) {
        case (.success(let a), .success(let b)) where a == b: break
        case (.failure(let a), .failure(let b)) where a.line == b.line: break
        default: fatalError("with CRLF line ends: \(withCRLF) instead of \(result)")
        }
    }
    return 0
}
