/// Text from outside (mount points, paths, error messages) shown on a terminal or a status
/// bar must not carry control characters: a newline would break a line protocol and an
/// escape sequence could rewrite the user's terminal. Like df, show them as "?".
public enum ControlCharacters {
    public static func replaced(in text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { out.append(isControl(scalar) ? "?" : scalar) }
        return String(out)
    }

    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
