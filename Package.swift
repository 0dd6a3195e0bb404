// swift-tools-version:6.1
import PackageDescription

// The client links statically (`-static-executable`): measured in docs/PERFORMANCE.md, it
// starts faster than `df -h`, where a dynamically linked Swift binary takes about 3× as long.
// USEDSPACE_CLIENT_LINKING=static-stdlib|dynamic builds the alternatives bench/startup.sh compares.
//
// The daemon links libsystemd, which Debian ships only as a shared library, so it links the
// Swift runtime statically and the C libraries dynamically, and it is linked for a small
// resident set (bench/daemon.sh, part 2). On Linux a page fault in a mapped file maps the
// 64 KiB around it (fault-around), so most of the daemon's RSS is 64 KiB per distinct stretch
// of its binary and its libraries that it has touched since it started. What each flag saved
// (VmRSS after 720 samples with a subscriber; 9.8 MB with -static-stdlib alone, 6.1 MB with all):
// - -z pack-relative-relocs (0.25 MB): a compact relocation table (DT_RELR), so fewer pages
//   are read and copied at start-up. -no-pie would save 0.16 MB more, but the executable,
//   which reads requests from its socket, should stay address-randomized.
// - libstdc++ and libgcc linked statically (1.0 MB: libstdc++.so is not loaded at all). The
//   Swift driver passes -lstdc++ itself, so -static-libstdc++ does nothing; instead the
//   directory Sources/usedspaced/Linking comes first in the library path, and its libstdc++.so
//   is a linker script that says INPUT(libstdc++.a) (from libstdc++-12-dev). Were a real
//   libstdc++.so found first, the daemon would simply link it as before.
// - lld (0.4 MB by itself), with --symbol-ordering-file=Linking/hot-symbols.txt (1.5 MB): the
//   functions and data that a daemon's run touches, packed together instead of spread over
//   6 MB. Regenerate the list with Linking/update-hot-symbols.sh after changing the daemon or
//   the toolchain: names that no longer exist are ignored, so a stale list costs memory, never
//   correctness. SwiftPM does not relink when only the list changed: delete usedspaced first.
// - Linking/plt-first.ld (0.1 MB): .init and .plt, used from start-up on, next to that code.
// - --no-export-dynamic (0.1-0.3 MB): no dynamic symbol table for the daemon's own symbols.
// lld is the one the Swift toolchain ships beside its clang (swift.org toolchains have ld.lld).
// USEDSPACE_DAEMON_LINKING=static-stdlib builds the plain -static-stdlib link, for comparison.

// The static client's link adds --defsym=dlopen=___dlopen. Without it, every build prints
// "Using 'dlopen' in statically linked applications requires at runtime the shared libraries
// from the glibc version used for linking": glibc's libc.a keeps that text in a
// .gnu.warning.dlopen section of its dlopen.o, and the linker (gold, which the toolchain uses
// for static executables) prints it when a kept object refers to the dlopen defined there.
// The only such object is libswiftCore's LibPrespecialized.cpp, which calls
// dlopen(path, RTLD_NOLOAD) only when the debugging variable SWIFT_DEBUG_LIB_PRESPECIALIZED_PATH
// is set, to find a library already loaded; a static executable has none, so the call fails
// and the runtime goes on without it, as before. The client itself calls neither dlopen nor
// getpwuid, which would dlopen an NSS module (docs/PERFORMANCE.md). Why this is safe: in
// libc.a, `dlopen` is a weak alias of `___dlopen`, the same function, so binding the name to
// it links the very same code (checked: every section is byte for byte the same; the stripped
// binaries differ only in their build ID) and silences this one warning: the linker still
// warns about getpwuid, getaddrinfo and their kind should the client ever call one. If a
// later glibc renamed ___dlopen, the link would fail with an undefined symbol rather than
// change behaviour. Only the static link needs it (libc.so does
// not export ___dlopen, and a dynamic link gives no such warning).
let clientLinking: [LinkerSetting] = switch Context.environment["USEDSPACE_CLIENT_LINKING"] {
case "dynamic": []
case "static-stdlib": [.unsafeFlags(["-static-stdlib"])]
default: [.unsafeFlags(["-static-executable", "-Xlinker", "--defsym=dlopen=___dlopen"])]
}
let daemonLinkingDirectory = Context.packageDirectory + "/Sources/usedspaced/Linking"
let daemonLinkingMode = Context.environment["USEDSPACE_DAEMON_LINKING"]
// The memory work applies to release builds only (debug builds and tests link plainly and
// faster). USEDSPACE_DAEMON_LINKING=profile links -no-pie, for update-hot-symbols.sh to read
// addresses; =unordered leaves out the symbol ordering file, to measure what it saves.
let daemonLinking: [LinkerSetting] = switch daemonLinkingMode {
case "static-stdlib": [.unsafeFlags(["-static-stdlib"])]
default: [
    .unsafeFlags(["-static-stdlib"]),
    .unsafeFlags([
        "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
        "-Xclang-linker", daemonLinkingMode == "profile" ? "-no-pie" : "-pie",
        "-L", daemonLinkingDirectory, "-Xclang-linker", "-static-libgcc",
        "-use-ld=lld",
        "-Xlinker", "-T", "-Xlinker", daemonLinkingDirectory + "/plt-first.ld",
        "-Xlinker", "--no-export-dynamic",
    ] + (daemonLinkingMode == "unordered" ? [] : [
        "-Xlinker", "--symbol-ordering-file=" + daemonLinkingDirectory + "/hot-symbols.txt",
        "-Xlinker", "--no-warn-symbol-ordering",
    ]), .when(configuration: .release)),
]
}

let package = Package(
    name: "usedspace",
    products: [
        .executable(name: "usedspace", targets: ["usedspace"]),
        .executable(name: "usedspaced", targets: ["usedspaced"]),
    ],
    dependencies: [
        // 1.12: LogHandler.log(event:) with LogEvent.error, the API JournalLogHandler implements.
        .package(url: "https://github.com/apple/swift-log", from: "1.12.0"),
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
            exclude: ["Linking"],
            linkerSettings: daemonLinking
        ),
        .testTarget(name: "UsedSpaceCoreTests", dependencies: ["UsedSpaceCore"], exclude: ["Golden"]),
        .testTarget(name: "UsedSpaceSystemTests", dependencies: ["UsedSpaceSystem", "UsedSpaceCore"]),
        .testTarget(name: "UsedSpaceDaemonTests", dependencies: ["UsedSpaceDaemon", "UsedSpaceSystem", "UsedSpaceCore",
                                                                 .product(name: "Logging", package: "swift-log")]),
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
    for name in ["RequestParser", "ClickEventDecoder", "JSONParser", "ResponseFrameDecoder", "Configuration", "SnapshotCodec", "UsageHistory", "Template"] {
        package.targets.append(.executableTarget(name: "Fuzz\(name)", dependencies: ["UsedSpaceCore"], path: "Fuzz/\(name)"))
        package.products.append(.executable(name: "Fuzz\(name)", targets: ["Fuzz\(name)"]))
    }
}
