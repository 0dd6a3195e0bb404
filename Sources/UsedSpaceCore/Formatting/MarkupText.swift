/// Text from outside (paths, commands) shown where markup is read: waybar's text and tooltip
/// (Pango), a notification's body on a server that says "body-markup". Escaped, a path
/// such as "Tom & Jerry.mkv" or "<b>.iso" is shown as it is, not parsed.
public enum MarkupText {
    public static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }
}
