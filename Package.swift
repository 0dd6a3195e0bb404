// swift-tools-version:6.0
import Foundation
import PackageDescription

// The toolchain's lib directory, beside the swiftc found on PATH (SwiftPM gives the manifest
// no other way to name the toolchain).
let toolchainLibrary: String? = {
    for directory in (Context.environment["PATH"] ?? "").split(separator: ":") {
        let swiftc = URL(fileURLWithPath: String(directory)).appendingPathComponent("swiftc")
        guard FileManager.default.isExecutableFile(atPath: swiftc.path) else { continue }
        return swiftc.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("../lib").standardized.path
    }
    return nil
}()
// The architecture built for, as uname -m, the target triple, compiler-rt and Debian's
// multiarch directories spell it (x86_64, aarch64): this machine's, which the manifest runs
// on, unless USEDSPACE_ARCH names another (make passes its ARCH).
let architecture: String = Context.environment["USEDSPACE_ARCH"] ?? {
    var system = utsname()
    uname(&system)
    return withUnsafeBytes(of: system.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}()

// The normal client (the tests'; what ships is the lean one below) links statically, the
// fastest start of the normal build (USEDSPACE_CLIENT_LINKING=static-stdlib|dynamic builds
// the alternatives bench/startup-variants.sh compares). --defsym binds
// dlopen to glibc's own ___dlopen, the same function, to silence the static linker's warning
// about a dlopen the Swift runtime makes only for a debugging variable.
// -static-executable links the libraries the toolchain's static-executable-args.lnk names:
// Debian 13's Swift 6.0.3 names an ICU of its own (-licuucswift…) that it does not ship
// ("cannot find -licui18nswift"). There the client links as the daemon does.
let defaultClientLinking: String = {
    guard let library = toolchainLibrary.map({ $0 + "/swift_static/linux/" }),
          let arguments = try? String(contentsOfFile: library + "static-executable-args.lnk", encoding: .utf8)
    else { return "static-executable" }
    let own = arguments.split(whereSeparator: \.isWhitespace).filter { $0.hasPrefix("-l") && $0.hasSuffix("swift") }
    let missing = own.contains { !FileManager.default.fileExists(atPath: library + "lib" + $0.dropFirst(2) + ".a") }
    return missing ? "static-stdlib" : "static-executable"
}()
let clientLinking: [LinkerSetting] = switch Context.environment["USEDSPACE_CLIENT_LINKING"] ?? defaultClientLinking {
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
// comparisons and case mapping). The normal build stays for `swift test` and the
// fuzzers (XCTest, swift-testing and libFuzzer need the full runtime).
let embedded = Context.environment["USEDSPACE_EMBEDDED"] == "1"
// Each binary's resident memory is mostly its own code, mapped 64 KiB around each page
// fault: so -Osize, and one section per function, which the release link drops when unused
// (SwiftPM's --gc-sections) and the toolchain's lld orders by link/<product>.order, the
// functions a run executes, first and together (link/update-order.sh; USEDSPACE_LINK_ORDER=0
// links without), after what link/hot.ld puts before them.
let leanSwift: [SwiftSetting] = embedded ? [
    .enableExperimentalFeature("Embedded"),
    .unsafeFlags(["-wmo", "-Xfrontend", "-function-sections"]),
    .unsafeFlags(["-Osize"], .when(configuration: .release)),
] : []
let leanCFlags: [CSetting] = embedded ? [.unsafeFlags(["-ffunction-sections", "-fdata-sections"])] : []
// The toolchain's embedded libraries for the architecture.
let embeddedLibraries = (toolchainLibrary ?? "/usr/lib") + "/swift/embedded/\(architecture)-unknown-linux-gnu"
// USEDSPACE_LIBC=musl, with USEDSPACE_EMBEDDED=1: the lean client linked statically against
// musl instead of glibc, as `make` builds it. A static glibc program spends most of a
// `usedspace status` in glibc's own start (probing the CPU and its caches with cpuid, which
// traps to the hypervisor on a VM); musl's start is a few system calls (docs/PERFORMANCE.md).
// The daemon stays on glibc, for libsystemd. musl's headers come first, then the kernel's
// (linux/, asm/) from /usr/include; USEDSPACE_MUSL_INCLUDE and USEDSPACE_MUSL_LIB say where
// musl is (Debian's musl-dev by default). The toolchain's compiler-rt gives what glibc's
// libgcc gave (128-bit division), and CLinux its own malloc (Allocator.c: musl's is slow here).
let musl = embedded && Context.environment["USEDSPACE_LIBC"] == "musl"
let muslInclude = Context.environment["USEDSPACE_MUSL_INCLUDE"] ?? "/usr/include/\(architecture)-linux-musl"
let muslLib = Context.environment["USEDSPACE_MUSL_LIB"] ?? "/usr/lib/\(architecture)-linux-musl"
let muslHeaders = ["-nostdlibinc", "-isystem", muslInclude, "-idirafter", "/usr/include",
                   "-idirafter", "/usr/include/\(architecture)-linux-gnu", "-DUSEDSPACE_MUSL", "-DUSEDSPACE_ALLOCATOR"]
let libcSwift: [SwiftSetting] = musl ? [.unsafeFlags(muslHeaders.flatMap { ["-Xcc", $0] })] : []
// The lean glibc build defines libm's four functions it uses itself (CLinux/Rounding.c), so
// the daemon maps no libm; musl's are in its libc.a.
let libcC: [CSetting] = musl ? [.unsafeFlags(muslHeaders)] : embedded ? [.define("USEDSPACE_OWN_ROUNDING")] : []
// compiler-rt's builtins, in the clang resource directory's older layout (lib/linux/…-x86_64.a)
// or the per-target one (lib/x86_64-unknown-linux-gnu/…).
let compilerBuiltins: String = {
    let clang = (toolchainLibrary ?? "/usr/lib") + "/clang/"
    let version = (try? FileManager.default.contentsOfDirectory(atPath: clang))?.sorted().last ?? "unknown"
    let perTarget = clang + version + "/lib/\(architecture)-unknown-linux-gnu/libclang_rt.builtins.a"
    if FileManager.default.fileExists(atPath: perTarget) { return perTarget }
    return clang + version + "/lib/linux/libclang_rt.builtins-\(architecture).a"
}()
let clientLibc: [LinkerSetting] = musl ? [.unsafeFlags(
    ["-Xclang-linker", "-static", "-Xclang-linker", "-nostdlib"] +
    [muslLib + "/crt1.o", muslLib + "/crti.o", muslLib + "/libc.a", compilerBuiltins, muslLib + "/crtn.o"]
        .flatMap { ["-Xlinker", $0] }
)] : [.unsafeFlags(["-lm", "-Xclang-linker", "-static"])]

// A lean build's settings for every target: the lean code, against the client's libc.
let lean = leanSwift + libcSwift
let leanC = leanCFlags + libcC

func leanLinking(_ product: String) -> [LinkerSetting] {
    let link = Context.packageDirectory + "/link/"
    let order = Context.environment["USEDSPACE_LINK_ORDER"] == "0" ? [] : [
        "-Xlinker", "--symbol-ordering-file=" + link + product + ".order", "-Xlinker", "--no-warn-symbol-ordering",
    ]
    return [.unsafeFlags(
        ["-L", embeddedLibraries, "-lswiftUnicodeDataTables", "-use-ld=lld", "-Xlinker", "-T", "-Xlinker", link + "hot.ld"] + order
    )]
}

// Debian sid's Swift 6.2.3 ships swift-testing's Foundation overlay (_Testing_Foundation)
// without its library, and SwiftPM enables cross-import overlays in test modules: every test
// module and SwiftPM's generated runner asked the linker for it ("cannot find
// -l_Testing_Foundation"). There the tests import no overlay (they use none of its API) and
// the runner's request finds an empty linker script (Tests/Toolchain/).
let missingTestingOverlay: Bool = {
    guard let linux = toolchainLibrary.map({ $0 + "/swift/linux/" }) else { return false }
    return FileManager.default.fileExists(atPath: linux + "_Testing_Foundation.swiftmodule")
        && !FileManager.default.fileExists(atPath: linux + "lib_Testing_Foundation.so")
}()
// Test modules are compiled unoptimized even in a release build (the arm64 unit tests':
// Tests/Roots/matrix): Debian 13's Swift 6.0.3 crashes optimizing their use of the
// noncopyable FileDescriptor.Pipe, and the work they time is the optimized library's.
let testSwift: [SwiftSetting] = [.unsafeFlags(["-Onone"], .when(configuration: .release))]
    + (missingTestingOverlay ? [.unsafeFlags(["-Xfrontend", "-disable-cross-import-overlays"])] : [])
let testLinking: [LinkerSetting] = missingTestingOverlay ? [.unsafeFlags(["-L", Context.packageDirectory + "/Tests/Toolchain"])] : []

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
            linkerSettings: embedded ? leanLinking("usedspace") + clientLibc : clientLinking
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
        .testTarget(name: "UsedSpaceCoreTests", dependencies: ["UsedSpaceCore"], exclude: ["Golden"],
                    swiftSettings: testSwift, linkerSettings: testLinking),
        .testTarget(name: "UsedSpaceSystemTests", dependencies: ["UsedSpaceSystem", "UsedSpaceCore"], swiftSettings: testSwift),
        .testTarget(name: "UsedSpaceDaemonTests", dependencies: ["UsedSpaceDaemon", "UsedSpaceSystem", "UsedSpaceCore"], swiftSettings: testSwift),
        .testTarget(name: "UsedSpaceClientTests", dependencies: ["UsedSpaceClient", "UsedSpaceSystem", "UsedSpaceCore"], swiftSettings: testSwift),
        .target(name: "CTestSupport", path: "Tests/CTestSupport"),
        .testTarget(
            name: "IntegrationTests",
            dependencies: ["UsedSpaceCore", "UsedSpaceSystem", "CTestSupport"],
            swiftSettings: testSwift
        ),
    ]
)

// USEDSPACE_UNIT_TESTS_ONLY=1: the package without its integration tests (IntegrationTests,
// CTestSupport: half the test code), for builds that run the unit tests alone: the other
// toolchains' and architectures' cells of CI's matrix (Tests/Roots/matrix).
if Context.environment["USEDSPACE_UNIT_TESTS_ONLY"] == "1" {
    package.targets.removeAll { ["IntegrationTests", "CTestSupport"].contains($0.name) }
}

// libFuzzer targets for the parsers of untrusted input, Fuzz/<Name>/ → product Fuzz<Name>.
// Part of the package only with USEDSPACE_FUZZ=1, built by bench/fuzz.sh with
// `swift build -c release --sanitize=fuzzer --scratch-path .build-fuzz --product Fuzz<Name>`.
if Context.environment["USEDSPACE_FUZZ"] == "1" {
    for name in ["RequestParser", "ClickEventDecoder", "JSONParser", "ResponseFrameDecoder", "Configuration", "SnapshotCodec", "UsageHistory", "Template", "FillWriterExchange"] {
        package.targets.append(.executableTarget(name: "Fuzz\(name)", dependencies: ["UsedSpaceCore"], path: "Fuzz/\(name)"))
        package.products.append(.executable(name: "Fuzz\(name)", targets: ["Fuzz\(name)"]))
    }
}
