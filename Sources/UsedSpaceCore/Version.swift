/// The version of usedspace: both programs, the protocol's `hello`, the package.
public enum UsedSpaceVersion {
    public static let current = "0.2.0"
}
