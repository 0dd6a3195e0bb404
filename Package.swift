// swift-tools-version:6.1
import Foundation
import PackageDescription

// The normal client (the tests'; what ships is the lean one below) links statically, the
// fastest start of the normal build (USEDSPACE_CLIENT_LINKING=static-stdlib|dynamic builds
// the alternatives bench/startup-variants.sh compares). --defsym binds
// dlopen to glibc's own ___dlopen, the same function, to silence the static linker's warning
// about a dlopen the Swift runtime makes only for a debugging variable.
let clientLinking: [LinkerSetting] = switch Context.environment["USEDSPACE_CLIENT_LINKING"] {
case "dynamic": []
case "static-stdlib": [.unsafeFlags(["-static-stdlib"])]
default: [.unsafeFlags(["-static-executable", "-Xlinker", "--defsym=dlopen=___dlopen"])]
}
// The normal daemon (for the tests; what ships is the lean one below) links the Swift
// runtime statically: Debian packages none.
let daemonLinking: [LinkerSetting] = [.unsafeFlags(["-static-stdlib"])]

// USEDSPACE_EMBEDDED=1: the lean binaries `make` ships (issue 19, docs/PERFORMANCE.md),
// Embedded Swift — no runtime metadata, whole-module, only what the program uses of the
// standard library — linked with the toolchain's embedded Unicode tables (String's
// comparisons and case mapping) and libm. The normal build stays for `swift test` and the
// fuzzers (XCTest, swift-testing and libFuzzer need the full runtime).
let embedded = Context.environment["USEDSPACE_EMBEDDED"] == "1"
// Each binary's resident memory is mostly its own code, mapped 64 KiB around each page
// fault: so -Osize, and one section per function, which the release link drops when unused
// (SwiftPM's --gc-sections) and the toolchain's lld orders by link/<product>.order, the
// functions a run executes, first and together (link/update-order.sh; USEDSPACE_LINK_ORDER=0
// links without), after what link/hot.ld puts before them.
let lean: [SwiftSetting] = embedded ? [
    .enableExperimentalFeature("Embedded"),
    .unsafeFlags(["-wmo", "-Xfrontend", "-function-sections"]),
    .unsafeFlags(["-Osize"], .when(configuration: .release)),
] : []
let leanC: [CSetting] = embedded ? [.unsafeFlags(["-ffunction-sections", "-fdata-sections"])] : []
// The toolchain's embedded libraries, beside the swiftc found on PATH (SwiftPM gives the
// manifest no other way to name the toolchain).
let embeddedLibraries: String = {
    for directory in (Context.environment["PATH"] ?? "").split(separator: ":") {
        let swiftc = URL(fileURLWithPath: String(directory)).appendingPathComponent("swiftc")
        guard FileManager.default.isExecutableFile(atPath: swiftc.path) else { continue }
        return swiftc.resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("../lib/swift/embedded/x86_64-unknown-linux-gnu").standardized.path
    }
    return "/usr/lib/swift/embedded/x86_64-unknown-linux-gnu"
}()
func leanLinking(_ product: String) -> [LinkerSetting] {
    let link = Context.packageDirectory + "/link/"
    let order = Context.environment["USEDSPACE_LINK_ORDER"] == "0" ? [] : [
        "-Xlinker", "--symbol-ordering-file=" + link + product + ".order", "-Xlinker", "--no-warn-symbol-ordering",
    ]
    return [.unsafeFlags(
        ["-L", embeddedLibraries, "-lswiftUnicodeDataTables", "-lm", "-use-ld=lld", "-Xlinker", "-T", "-Xlinker", link + "hot.ld"] + order
    )]
}

let package = Package(
    name: "usedspace",
    products: [
        .executable(name: "usedspace", targets: ["usedspace"]),
        .executable(name: "usedspaced", targets: ["usedspaced"]),
    ],
    targets: [
        .target(name: "UsedSpaceCore", swiftSettings: lean),
        .target(name: "CLinux", cSettings: leanC),
        .target(name: "UsedSpaceSystem", dependencies: ["UsedSpaceCore", "CLinux"], swiftSettings: lean),
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // sd-bus's interface tables, which are built with C macros.
        .target(name: "CBusVtable", dependencies: ["CSystemd"], cSettings: leanC),
        .target(name: "UsedSpaceClient", dependencies: ["UsedSpaceCore", "UsedSpaceSystem"], swiftSettings: lean),
        .executableTarget(
            name: "usedspace",
            dependencies: ["UsedSpaceClient", "UsedSpaceSystem"],
            swiftSettings: lean,
            linkerSettings: embedded ? leanLinking("usedspace") + [.unsafeFlags(["-Xclang-linker", "-static"])] : clientLinking
        ),
        .target(
            name: "UsedSpaceDaemon",
            dependencies: ["UsedSpaceCore", "UsedSpaceSystem", "CSystemd", "CBusVtable"],
            swiftSettings: lean
        ),
        .executableTarget(
            name: "usedspaced",
            dependencies: ["UsedSpaceDaemon", "UsedSpaceSystem"],
            swiftSettings: lean,
            linkerSettings: embedded ? leanLinking("usedspaced") : daemonLinking
        ),
        .testTarget(name: "UsedSpaceCoreTests", dependencies: ["UsedSpaceCore"], exclude: ["Golden"]),
        .testTarget(name: "UsedSpaceSystemTests", dependencies: ["UsedSpaceSystem", "UsedSpaceCore"]),
        .testTarget(name: "UsedSpaceDaemonTests", dependencies: ["UsedSpaceDaemon", "UsedSpaceSystem", "UsedSpaceCore"]),
        .testTarget(name: "UsedSpaceClientTests", dependencies: ["UsedSpaceClient", "UsedSpaceSystem", "UsedSpaceCore"]),
        .target(name: "CTestSupport", path: "Tests/CTestSupport"),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["UsedSpaceCore", "UsedSpaceSystem", "CTestSupport"]
        ),
    ]
)

// libFuzzer targets for the parsers of untrusted input, Fuzz/<Name>/ → product Fuzz<Name>.
// Part of the package only with USEDSPACE_FUZZ=1, built by bench/fuzz.sh with
// `swift build -c release --sanitize=fuzzer --scratch-path .build-fuzz --product Fuzz<Name>`.
if Context.environment["USEDSPACE_FUZZ"] == "1" {
    for name in ["RequestParser", "ClickEventDecoder", "JSONParser", "ResponseFrameDecoder", "Configuration", "SnapshotCodec", "UsageHistory", "Template", "FillWriterExchange"] {
        package.targets.append(.executableTarget(name: "Fuzz\(name)", dependencies: ["UsedSpaceCore"], path: "Fuzz/\(name)"))
        package.products.append(.executable(name: "Fuzz\(name)", targets: ["Fuzz\(name)"]))
    }
}
