// What the panel and the details say, from the daemon's state, in GNOME Shell and in Plasma
// alike: pure, so that every state (no daemon, stale, failed, a malformed answer) is worded
// in one place.
import * as Format from './format.js';
import * as Filesystems from './filesystems.js';

// What a front-end installed without usedspace (from a store) says, and what to do.
export const NOT_INSTALLED = 'usedspace is not installed: install it (its package, or make install), ' +
    'then enable its daemon: systemctl --user enable --now usedspace.socket';

// Why the menu has no filesystem to show, in one line ('' when it has or is still asking).
export function daemonMessage(daemon, filesystems) {
    if (daemon === 'missing')
        return NOT_INSTALLED;
    if (daemon === 'absent')
        return 'The usedspace daemon is not running.';
    if (daemon === 'running' && filesystems.length === 0)
        return 'The usedspace daemon watches no filesystem.';
    return '';
}

// The top bar: `text` beside the bar, `fill` (0 to 1) of the bar, `level` (the colour:
// normal, warning, critical) and `mode` (fresh, stale, failed, error, no-daemon, empty).
// `daemon`: 'connecting' (before the first answer), 'running', 'absent' (not running),
// 'missing' (usedspace is not installed), or 'error' (what came was not an answer at all).
export function indicatorView(daemon, filesystems, home) {
    if (daemon === 'missing')
        return {mode: 'no-daemon', level: 'normal', fill: 0, text: 'not installed'};
    if (daemon === 'absent')
        return {mode: 'no-daemon', level: 'normal', fill: 0, text: 'no daemon'};
    if (daemon === 'error')
        return {mode: 'error', level: 'critical', fill: 0, text: 'error'};
    const fs = Filesystems.panelFilesystem(filesystems, home);
    if (!fs)
        return {mode: 'empty', level: 'normal', fill: 0, text: '–'};
    if (fs.problem)
        return {mode: 'error', level: 'critical', fill: 0, text: 'error'};
    const prefix = fs.label ? `${fs.label.trim()} ` : fs.path === home ? '' : `${fs.path} `;
    if (!fs.hasNumbers)
        return {mode: 'failed', level: fs.severity, fill: 0, text: `${prefix}failed`};
    const [used, free] = limitingShare(fs);
    const percent = `${prefix}${Format.percentText(used, free)}%${fs.quota ? ' (quota)' : ''}`;
    const fill = Format.filledCells(used, free, 1000) / 1000;
    if (fs.state === 'stale')
        return {mode: 'stale', level: fs.severity, fill, text: `${percent} (stale)`};
    return {mode: 'fresh', level: fs.severity, fill, text: percent};
}

// Used and free of what fills first: a quota that leaves less room than the filesystem (the
// bar and the percentage follow it, marked, as in the bars; Used, Free and Total stay df's),
// else the filesystem.
function limitingShare(fs) {
    return fs.quota ? [fs.quota.usedBytes, Math.max(0, fs.quota.limitBytes - fs.quota.usedBytes)] : [fs.usedBytes, fs.freeBytes];
}

// One filesystem in the menu: a title, the bar's fill and percentage, and detail lines, each
// [label, value] (as `usedspace status --details` prints Used, Free and Total).
export function filesystemView(fs, home) {
    if (fs.problem) {
        return {
            title: Filesystems.displayName(fs, home), subtitle: '', level: 'critical', mode: 'error', fill: 0, percent: '',
            lines: [['Error', fs.problem]],
        };
    }
    const subtitle = [fs.mountPoint !== fs.path ? fs.mountPoint : '', fs.fsType, fs.readOnly ? 'read-only' : '']
        .filter(part => part).join(' · ');
    const view = {
        title: Filesystems.displayName(fs, home), subtitle, level: fs.severity, mode: fs.state,
        fill: 0, percent: '', lines: [],
    };
    if (fs.hasNumbers) {
        const [used, free] = limitingShare(fs);
        view.fill = Format.filledCells(used, free, 1000) / 1000;
        view.percent = `${Format.percentText(used, free)}%${fs.quota ? ' (quota)' : ''}`;
        view.lines.push(['Used', Format.fileSize(fs.usedBytes)]);
        view.lines.push(['Free', Format.fileSize(fs.freeBytes)]);
        view.lines.push(['Total', Format.fileSize(fs.totalBytes)]);
        if (fs.quota)
            view.lines.push(['Quota', `${Format.fileSize(fs.quota.usedBytes)} of ${Format.fileSize(fs.quota.limitBytes)} (${fs.quota.kind})`]);
    }
    if (fs.readOnly)
        view.lines.push(['Mounted', 'read-only']);
    if (fs.timeToFull)
        view.lines.push(['Trend', fs.timeToFull]);
    if (fs.fastFill && fs.state === 'fresh') {
        view.lines.push(['Filling', Format.fastFillText(fs.fastFill.bytesPerSecond, fs.fastFill.secondsToFull)]);
        // Who is filling it, in the daemon's words (as `usedspace status --details` says them).
        if (fs.fastFill.writing)
            view.lines.push(['Writing', fs.fastFill.writing]);
    }
    if (fs.btrfs) {
        view.lines.push(['Unallocated', Format.fileSize(fs.btrfs.unallocatedBytes)]);
        if (fs.btrfs.metadata === 'low' || fs.btrfs.metadata === 'full')
            view.lines.push(['Metadata', `btrfs metadata ${fs.btrfs.metadata}: writes fail once it is full`]);
    }
    if (fs.state === 'stale')
        view.lines.push(['Stale', fs.error || 'not confirmed since the daemon started']);
    else if (fs.state === 'failed')
        view.lines.push(['Failed', fs.error || 'no numbers']);
    return view;
}

// The date menu's lines for one filesystem: "Home", "35.2%", "307.8 GB free of 500 GB".
export function summaryLine(fs, home) {
    const view = filesystemView(fs, home);
    if (fs.problem)
        return {name: view.title, percent: 'error', free: fs.problem, level: 'critical', fill: 0, mode: 'error'};
    const free = fs.hasNumbers ? `${Format.fileSize(fs.freeBytes)} free of ${Format.fileSize(fs.totalBytes)}` : fs.error || 'failed';
    const mark = fs.state === 'stale' ? ' (stale)' : '';
    return {name: view.title, percent: view.percent + mark, free, level: view.level, fill: view.fill, mode: view.mode};
}
