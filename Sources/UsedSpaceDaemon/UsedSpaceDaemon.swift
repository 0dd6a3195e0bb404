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
        /// EX_CONFIG: the unit's RestartPreventExitStatus= keeps systemd from retrying
        /// a configuration that cannot work until someone edits it.
        static let configuration: Int32 = 78
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
            StandardStreams.write("usedspaced \(Manager.version)\n")
            return 0
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
        let settings: Configuration
        do {
            paths = try DaemonPaths.resolve(options)
            settings = try ConfigurationLoader(paths: paths, options: options).load()
        } catch let error as ConfigurationLoader.Failure {
            logger.critical("cannot start: invalid configuration; fix it (usedspace config check) and restart", metadata: ["reason": "\(error)"])
            return ExitStatus.configuration
        } catch {
            logger.critical("cannot start", metadata: ["reason": "\(error)"])
            return ExitStatus.failure
        }

        ProcessControl.resetSignalMask()
        ProcessControl.blockSignals([SIGTERM, SIGINT, SIGHUP])
        ProcessControl.ignore(SIGPIPE)
        ProcessControl.raiseOpenFileLimit(to: UInt64(DaemonSettings.clientRange.upperBound + 64))
        do {
            let loop = try EventLoop()
            let manager = try Manager(loop: loop, logger: logger, options: options, paths: paths, configuration: settings)
            try manager.start()
            let status = try loop.run()
            withExtendedLifetime(manager) {}
            return status
        } catch {
            logger.critical("cannot start", metadata: ["reason": "\(error)"])
            return ExitStatus.failure
        }
    }
}
