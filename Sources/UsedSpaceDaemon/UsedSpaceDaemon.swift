import CLinux
import UsedSpaceCore
import UsedSpaceSystem

/// `usedspaced`: parses options, sets up logging and the process, runs the manager's loop.
public enum UsedSpaceDaemon {
    /// Exit statuses (usedspaced(8)).
    enum ExitStatus {
        static let failure: Int32 = 1
        static let usage: Int32 = 2
    }

    public static func main(_ arguments: [String]) -> Int32 {
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(arguments.dropFirst())
        } catch {
            StandardStreams.error("usedspaced: \(error)")
            return ExitStatus.usage
        }
        if options.showHelp {
            StandardStreams.write(DaemonOptions.help + "\n")
            return 0
        }
        if options.showVersion {
            StandardStreams.write("usedspaced \(UsedSpaceVersion.current)\n")
            return 0
        }
        if options.reload {
            return ReloadCommand.run(options)
        }
        if options.nameWriters {
            return NameWritersCommand.run()
        }
        let logger = Logger(identifier: "usedspaced", destination: JournalLog.stderrIsJournal ? .journal : .standardError,
                            logLevel: options.verbose ? .debug : .info)

        let paths: DaemonPaths
        do {
            paths = try DaemonPaths.resolve(options)
        } catch {
            logger.critical("cannot start: \(error)", metadata: ["reason": "\(error)"])
            return ExitStatus.failure
        }

        ProcessControl.resetSignalMask()
        ProcessControl.blockSignals([SIGTERM, SIGINT, SIGHUP])
        ProcessControl.ignore(SIGPIPE)
        ProcessControl.raiseOpenFileLimit(to: UInt64(DaemonSettings.clientRange.upperBound + 64))
        do throws(DaemonFailure) {
            let loop: EventLoop
            do { loop = try EventLoop() } catch { throw DaemonFailure(error) }
            let manager = Manager(loop: loop, logger: logger, paths: paths, loader: ConfigurationLoader(paths: paths, options: options))
            try manager.start()
            let status: Int32
            do { status = try loop.run() } catch { throw DaemonFailure(error) }
            withExtendedLifetime(manager) {}
            return status
        } catch {
            logger.critical("cannot start: \(error)", metadata: ["reason": "\(error)"])
            return ExitStatus.failure
        }
    }
}
