#!/bin/sh
# lean-probe.sh SWIFTC ARCH: can this toolchain build the lean binaries (Embedded Swift,
# Package.swift's USEDSPACE_EMBEDDED) for ARCH? It compiles and links a small program as the
# lean build does (the embedded standard library, its Unicode data tables, the toolchain's
# lld), in a temporary directory, and runs it where it can. Prints nothing when it can;
# otherwise one line saying what the toolchain lacks, which make says before it builds the
# normal binaries. It asks the toolchain, not a table of versions: a distribution may build
# Swift without Embedded Swift for an architecture, or without its Unicode tables.
swiftc=$1 arch=$2
triple=$arch-unknown-linux-gnu
path=$(command -v "$swiftc") || { echo "there is no $swiftc"; exit 0; }
version=$("$swiftc" --version 2>/dev/null | sed -n 's/.*Swift version \([^ ]*\).*/\1/p' | head -n 1)
name="Swift ${version:-of $path}"
library=$(dirname "$(readlink -f "$path")")/../lib/swift/embedded
if [ ! -e "$library/Swift.swiftmodule/$triple.swiftmodule" ]; then
    echo "$name has no Embedded Swift for $arch"; exit 0
fi
dir=$(mktemp -d) || exit 0
trap 'rm -rf "$dir"' EXIT
# What the lean code leans on and some toolchains lack: String's Unicode comparison and
# case mapping, a Double's text (Swift 6.2.3's Embedded Swift has no swift_float64ToString),
# typed errors, a generic class.
cat > "$dir/probe.swift" <<'EOF'
enum ProbeError: Error { case differs }
final class Box<Value> { let value: Value; init(_ value: Value) { self.value = value } }
func check(_ a: String, _ b: String) throws(ProbeError) -> Int {
    guard a == b, "Straße".uppercased() == "STRASSE", "\(Double(a.count) / 8)" == "0.125" else { throw .differs }
    return Box(a.count).value
}
@main struct Probe {
    static func main() {
        do { _ = try check("\u{E9}", "e\u{301}") } catch { fatalError("Unicode tables") }
    }
}
EOF
if ! log=$("$swiftc" -target "$triple" -enable-experimental-feature Embedded -wmo -Osize -parse-as-library \
        "$dir/probe.swift" -L "$library/$triple" -lswiftUnicodeDataTables -use-ld=lld -o "$dir/probe" 2>&1); then
    reason=$(printf '%s\n' "$log" | grep -v 'command failed' | grep -m 1 'error:' | sed 's/.*error: //' | cut -c 1-160)
    echo "$name's Embedded Swift for $arch cannot build the lean binaries ($reason)"; exit 0
fi
if [ "$arch" = "$(uname -m)" ] && ! "$dir/probe" >/dev/null 2>&1; then
    echo "$name's Embedded Swift for $arch builds programs that do not run"
fi
exit 0
