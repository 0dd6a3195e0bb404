// The same result through Foundation: ProcessInfo for $HOME, FileManager for the statfs,
// String(format:) for the line. Options are ignored.
import Foundation

let home = ProcessInfo.processInfo.environment["HOME"] ?? "/"
do {
    let attributes = try FileManager.default.attributesOfFileSystem(forPath: home)
    let total = (attributes[.systemSize] as? NSNumber)?.uint64Value ?? 0
    let free = (attributes[.systemFreeSize] as? NSNumber)?.uint64Value ?? 0
    print(String(format: "%@: %llu of %llu bytes free", home, free, total))
} catch {
    FileHandle.standardError.write("variant: \(error)\n".data(using: .utf8)!)
    exit(1)
}
