// The same probe behind swift-argument-parser: `status [--path PATH] [--details] [--format FORMAT]`.
import ArgumentParser
import StatProbe

enum Format: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

struct UsedSpace: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usedspace",
        abstract: "How full your home filesystem is.",
        subcommands: [Status.self]
    )
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the used percentage once, then exit.")

    @Option(name: .shortAndLong, help: "Measure the filesystem that holds PATH.")
    var path: String?

    @Flag(name: .shortAndLong, help: "Also print Used, Free and Total.")
    var details = false

    @Option(name: .shortAndLong, help: "text or json.")
    var format: Format = .text

    func run() throws {
        let status = StatProbe.report(path: path ?? StatProbe.home(), details: details, json: format == .json)
        if status != 0 { throw ExitCode(status) }
    }
}

UsedSpace.main()
