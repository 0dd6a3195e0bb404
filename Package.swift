// swift-tools-version:6.1
import PackageDescription

// The client links statically (`-static-executable`): measured in docs/PERFORMANCE.md, it
// starts faster than `df -h`, where a dynamically linked Swift binary takes about 3× as long.
// The daemon links libsystemd, which Debian ships only as a shared library, so it links
// the Swift runtime statically and the C libraries dynamically.
// USEDSPACE_CLIENT_LINKING=static-stdlib|dynamic builds the alternatives bench/startup.sh compares.
let clientLinking: [LinkerSetting] = switch Context.environment["USEDSPACE_CLIENT_LINKING"] {
case "dynamic": []
case "static-stdlib": [.unsafeFlags(["-static-stdlib"])]
default: [.unsafeFlags(["-static-executable"])]
}
let package = Package(
    name: "usedspace",
    products: [
        .executable(name: "usedspace", targets: ["usedspace"]),
        .executable(name: "usedspaced", targets: ["usedspaced"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .target(name: "UsedSpaceCore"),
        .target(name: "CLinux"),
        .target(name: "UsedSpaceSystem", dependencies: ["UsedSpaceCore", "CLinux"]),
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .target(name: "UsedSpaceClient", dependencies: ["UsedSpaceCore", "UsedSpaceSystem"]),
        .executableTarget(
            name: "usedspace",
            dependencies: ["UsedSpaceClient"],
            linkerSettings: clientLinking
        ),
        .target(
            name: "UsedSpaceDaemon",
            dependencies: [
                "UsedSpaceCore", "UsedSpaceSystem", "CSystemd",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "usedspaced",
            dependencies: ["UsedSpaceDaemon"],
            linkerSettings: [.unsafeFlags(["-static-stdlib"])]
        ),
        .testTarget(name: "UsedSpaceCoreTests", dependencies: ["UsedSpaceCore"], exclude: ["Golden"]),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["UsedSpaceCore", "UsedSpaceSystem"]
        ),
    ]
)

// libFuzzer targets for the parsers of untrusted input, Fuzz/<Name>/ → product Fuzz<Name>.
// Part of the package only with USEDSPACE_FUZZ=1, built by bench/fuzz.sh with
// `swift build -c release --sanitize=fuzzer --scratch-path .build-fuzz --product Fuzz<Name>`.
if Context.environment["USEDSPACE_FUZZ"] == "1" {
    for name in ["RequestParser", "ClickEventDecoder", "JSONParser", "ResponseFrameDecoder", "Configuration", "SnapshotCodec", "UsageHistory"] {
        package.targets.append(.executableTarget(name: "Fuzz\(name)", dependencies: ["UsedSpaceCore"], path: "Fuzz/\(name)"))
        package.products.append(.executable(name: "Fuzz\(name)", targets: ["Fuzz\(name)"]))
    }
}
