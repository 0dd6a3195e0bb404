// The widget's debug log, off unless asked for (QT_LOGGING_RULES="io.github.usedspace.debug=true"):
// what each view shows, one line per change ("compact: …", "compact-at: …", "details: …",
// "message: …"), which the tests read alike from Plasma 5.27 and 6.
import QtQuick 2.15

LoggingCategory {
    name: "io.github.usedspace"
    defaultLogLevel: LoggingCategory.Warning
}
