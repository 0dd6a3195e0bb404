// Which filesystem goes where, for every front-end. A filesystem is a plain record, made from
// the daemon's D-Bus properties (GNOME: dbusFilesystem.js) or from the client's JSON (Plasma:
// statusJson.js):
//
//   {key, problem, path, mountPoint, fsType, label, state ('fresh', 'stale', 'failed'),
//    severity ('normal', 'warning', 'critical'), error, hasNumbers, usedBytes, freeBytes,
//    totalBytes, readOnly, timeToFull (text or ''), fastFill ({bytesPerSecond, secondsToFull,
//    writing: who is filling it, or ''} or null), btrfs ({unallocatedBytes, metadata} or null), quota ({kind, usedBytes,
//    limitBytes} when a quota leaves less room than the filesystem, else null), seq}
//
// `problem` says why what was received makes no sense (then only key, path, severity and
// state are set): it is shown as an error.

const RANK = {normal: 0, warning: 1, critical: 2};

// The menu's order: the home directory's filesystem first, then by path.
export function sortedForMenu(filesystems, home) {
    return filesystems.slice().sort((a, b) => {
        if ((a.path === home) !== (b.path === home))
            return a.path === home ? -1 : 1;
        return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
    });
}

// The filesystem the panel shows: the most severe (a problem counts as more than critical:
// it must be seen), then the one holding `home`, then the first by path; null when none.
export function panelFilesystem(filesystems, home) {
    const rank = fs => fs.problem ? 3 : RANK[fs.severity];
    let shown = null;
    for (const fs of sortedForMenu(filesystems, home)) {
        if (!shown || rank(fs) > rank(shown))
            shown = fs;
    }
    return shown;
}

// The name a filesystem goes by: its label, else "Home" for the home directory, else the
// watched path.
export function displayName(fs, home) {
    if (fs.label && fs.label.trim())
        return fs.label.trim();
    return fs.path === home ? 'Home' : fs.path;
}
