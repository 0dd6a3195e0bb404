// swift-tools-version:6.1
// Start-up variants for bench/startup-variants.sh: the same tiny `status` (statvfs of $HOME,
// one line out) built with different CLI parsing and imports, so that their start-up can be
// compared with `df -h ~` and with the real client. Not part of the root package.
//
// How they link is chosen on the command line (bench/startup-variants.sh), so that every module,
// swift-argument-parser's too, is compiled for it: nothing for dynamic, `--static-swift-stdlib`,
// or `-Xswiftc -static-executable`. Build each linking into its own --scratch-path.
import PackageDescription

let package = Package(
    name: "usedspace-startup-variants",
    products: [
        .executable(name: "variant-plain", targets: ["plain"]),
        .executable(name: "variant-argparser", targets: ["argparser"]),
        .executable(name: "variant-foundation", targets: ["foundation"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .target(name: "StatProbe"),
        .executableTarget(name: "plain", dependencies: ["StatProbe"]),
        .executableTarget(
            name: "argparser",
            dependencies: ["StatProbe", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(name: "foundation"),
    ]
)
