import Glibc
import Logging
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
        let useJournal = JournalLogHandler.stderrIsJournal
        let level: Logger.Level = options.verbose ? .debug : .info
        LoggingSystem.bootstrap { _ in
            if useJournal {
                var handler = JournalLogHandler(identifier: "usedspaced")
                handler.logLevel = level
                return handler
            }
            var handler = StandardErrorLogHandler(identifier: "usedspaced")
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "usedspaced")

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
        do {
            let loop = try EventLoop()
            let manager = Manager(loop: loop, logger: logger, paths: paths, loader: ConfigurationLoader(paths: paths, options: options))
            try manager.start()
            let status = try loop.run()
            withExtendedLifetime(manager) {}
            return status
        } catch {
            logger.critical("cannot start: \(error)", metadata: ["reason": "\(error)"])
            return ExitStatus.failure
        }
    }
}
